"""The lakeops configuration file: the catalog, Spark, policy defaults, discovery rules and tables.

Every section is a frozen dataclass validated on construction. Unknown keys and bad values raise
ConfigError naming the key, the value received and the fix. Values may use ``${VAR}`` or
``${VAR:-default}`` to read the environment; relative paths resolve against the file's folder.
"""

from __future__ import annotations

from lakeops.catalogs.config import CATALOG_KINDS, CatalogConfig
from lakeops.config.ingest import (
    COMMIT_MODES,
    INGEST_FORMATS,
    INGEST_MODES,
    MAX_WRITERS,
    STREAM_MAX_RUN_SECONDS,
    IngestConfig,
    StreamingConfig,
)
from lakeops.config.policies import (
    COMPACTION_TRIGGERS,
    PARTIAL_PROGRESS_MODES,
    CompactionPolicy,
    HealthThresholds,
    RetentionPolicy,
    ZonemapConfig,
)
from lakeops.config.root import (
    CONFIG_ENV,
    LakeopsConfig,
    default_config_path,
    load_alerts_config,
    load_config,
    parse_config,
)
from lakeops.config.services import DEFAULT_DEADLINE_MINUTES, AlertsConfig, HealthConfig, SparkConfig
from lakeops.config.table import POLICY_CLASSES, POLICY_SETTINGS, TableConfig, build_table
from lakeops.tables.identifier import validate_name as validate_identifier

__all__ = [
    "CATALOG_KINDS", "COMMIT_MODES", "COMPACTION_TRIGGERS", "CONFIG_ENV", "DEFAULT_DEADLINE_MINUTES", "INGEST_FORMATS",
    "INGEST_MODES", "MAX_WRITERS", "PARTIAL_PROGRESS_MODES", "POLICY_CLASSES", "POLICY_SETTINGS", "STREAM_MAX_RUN_SECONDS",
    "AlertsConfig", "CatalogConfig", "CompactionPolicy", "HealthConfig", "HealthThresholds", "IngestConfig",
    "LakeopsConfig", "RetentionPolicy", "SparkConfig", "StreamingConfig", "TableConfig", "ZonemapConfig",
    "build_table", "default_config_path", "load_alerts_config", "load_config", "parse_config", "validate_identifier",
]
