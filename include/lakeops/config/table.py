"""One table's entry in the config, with its policies layered: code default, then the config's `defaults`,
then the table's own Iceberg properties, then the entry itself (lakeops.tables.policy)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lakeops.config.build import build, convert, settable_fields
from lakeops.config.ingest import IngestConfig, StreamingConfig
from lakeops.config.policies import CompactionPolicy, HealthThresholds, RetentionPolicy, ZonemapConfig
from lakeops.exceptions import ConfigError
from lakeops.tables.definition import TableDefinition, parse_definition
from lakeops.tables.identifier import TableId, validate_name
from lakeops.tables.policy import Origin, layered, settings_from_properties

POLICY_CLASSES: dict[str, type] = {"compaction": CompactionPolicy, "retention": RetentionPolicy,
                                   "health": HealthThresholds, "zonemap": ZonemapConfig}
"""Sections the config's `defaults` and a table's properties may set."""
TOP_LEVEL_POLICIES: dict[str, Any] = {"freshness_sla_minutes": int}
POLICY_SETTINGS = tuple([f"{section}.{name}" for section, cls in POLICY_CLASSES.items() for name in settable_fields(cls)]
                        + list(TOP_LEVEL_POLICIES))
"""Every setting whose origin `lakeops tables --explain` reports."""


@dataclass(frozen=True)
class TableConfig:
    """A maintained table: named in the config, or brought in by a discovery rule (then every setting comes
    from the defaults and the table's properties)."""

    name: str
    """The table's identifier, namespace.table."""
    source: str | None = None
    """Landing folder of the table's input, under landing_dir; unset: lakeops does not ingest the table, unless
    ingest.kafka names a topic to read instead."""
    key: tuple[str, ...] = ()
    """Row key for CDC merges; default: the table's identifier fields."""
    create: TableDefinition | None = None
    """Columns, partitioning and sort order of a table lakeops creates; unset for tables that exist."""
    ingest_interval_minutes: int = 5
    """Length of one ingest batch and the ingest DAG's schedule (default 5; must divide an hour)."""
    freshness_sla_minutes: int = 30
    """The longest a table may go without a commit that changed rows before a freshness alert (default 30, at least 1)."""
    zonemap: ZonemapConfig = field(default_factory=ZonemapConfig)
    """Zonemap columns and memory bound (section zonemap)."""
    compaction: CompactionPolicy = field(default_factory=CompactionPolicy)
    """When and how the table is compacted (section compaction)."""
    retention: RetentionPolicy = field(default_factory=RetentionPolicy)
    """How long snapshots and orphan files are kept (section retention)."""
    health: HealthThresholds = field(default_factory=HealthThresholds)
    """When the health sensors fire (section health)."""
    streaming: StreamingConfig = field(default_factory=StreamingConfig)
    """The streaming query, for ingest.mode streaming (section streaming)."""
    ingest: IngestConfig = field(default_factory=IngestConfig)
    """How the table is ingested (section ingest)."""
    discovered: bool = False
    origins: Mapping[str, Origin] = field(default_factory=dict, compare=False, repr=False)
    """Where each policy setting came from."""
    entry: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    defaults: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        where = f"tables.{self.name}"
        for column in self.key:
            validate_name(column, f"{where}.key")
        for column in self.zonemap.columns:
            validate_name(column, f"{where}.zonemap.columns")
        if not set(self.zonemap.bloom_columns) <= set(self.zonemap.columns):
            raise ConfigError(f"{where}.zonemap.bloom_columns: {list(self.zonemap.bloom_columns)} must also be listed in "
                              "zonemap.columns")
        if self.zonemap.bloom_hour_column:
            validate_name(self.zonemap.bloom_hour_column, f"{where}.zonemap.bloom_hour_column")
            if not self.zonemap.bloom_columns:
                raise ConfigError(f"{where}.zonemap.bloom_hour_column: {self.zonemap.bloom_hour_column!r} pairs the values of "
                                  "zonemap.bloom_columns with their hour, and bloom_columns is empty; list a column there "
                                  "(e.g. [user_id]) or remove bloom_hour_column")
        if self.create is not None:
            known = self.create.column_names()
            hour = (self.zonemap.bloom_hour_column,) if self.zonemap.bloom_hour_column else ()
            for column in (*self.zonemap.columns, *self.key, *hour):
                if column not in known:
                    raise ConfigError(f"{where}: column {column!r} is not declared in create.columns; "
                                      f"declared: {', '.join(known)}")
        if self.freshness_sla_minutes < 1:
            raise ConfigError(f"{where}.freshness_sla_minutes: {self.freshness_sla_minutes} must be at least 1")
        if self.ingest_interval_minutes < 1 or 60 % self.ingest_interval_minutes:
            raise ConfigError(f"{where}.ingest_interval_minutes: {self.ingest_interval_minutes} must divide an hour "
                              "(1, 2, 5, 10, 15, 30, 60)")
        if self.ingest.commit_mode == "staged" and self.ingest.staging_max_age_hours >= self.retention.orphan_min_age_hours:
            raise ConfigError(f"{where}.ingest.staging_max_age_hours: {self.ingest.staging_max_age_hours:g} is not below "
                              f"retention.orphan_min_age_hours {self.retention.orphan_min_age_hours}; orphan removal could "
                              "delete staged files a late committer still needs. Set it below that (default 24)")

    @property
    def id(self) -> TableId:
        return TableId.parse(self.name)

    @property
    def quarantine_name(self) -> str:
        """The quarantine table beside this one: namespace.<table>_quarantine."""
        return str(self.id.sibling(f"{self.id.name}_quarantine"))

    @property
    def ingested(self) -> bool:
        """Whether lakeops ingests the table (and renders its ingest or stream DAG): it has a source folder or a Kafka
        topic (ingest.kafka)."""
        return self.source is not None or self.ingest.kafka is not None

    @property
    def source_dir(self) -> str:
        """The landing folder, relative to landing_dir: `source`, else the table's name."""
        return self.source or self.id.name

    def with_properties(self, properties: Mapping[str, str]) -> TableConfig:
        """This table's settings with its Iceberg properties layered between the defaults and the entry."""
        return build_table(self.id, self.entry, self.defaults, properties, discovered=self.discovered)


def _check_sections(data: Mapping[str, Any], where: str) -> None:
    for section, cls in POLICY_CLASSES.items():
        values = data.get(section)
        if values is None:
            continue
        if not isinstance(values, dict):
            raise ConfigError(f"{where}.{section}: expected a mapping of settings, got {values!r}")
        allowed = settable_fields(cls)
        unknown = [k for k in values if k not in allowed]
        if unknown:
            raise ConfigError(f"{where}.{section}: unknown key {unknown[0]!r}; allowed keys are {', '.join(allowed)}")


def parse_defaults(data: Any) -> dict[str, Any]:
    """The config's `defaults`: policy sections and top-level policies every table starts from, validated."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"defaults: expected a mapping of policy sections, got {data!r}")
    allowed = [*POLICY_CLASSES, *TOP_LEVEL_POLICIES]
    unknown = [k for k in data if k not in allowed]
    if unknown:
        raise ConfigError(f"defaults: unknown key {unknown[0]!r}; allowed keys are {', '.join(allowed)}")
    _check_sections(data, "defaults")
    for section, cls in POLICY_CLASSES.items():
        build(cls, data.get(section), f"defaults.{section}")
    for name, hint in TOP_LEVEL_POLICIES.items():
        if name in data:
            convert(data[name], hint, f"defaults.{name}")
    return dict(data)


def build_table(table: TableId, entry: Any, defaults: Mapping[str, Any], properties: Mapping[str, str] | None = None,
                *, discovered: bool = False) -> TableConfig:
    """The table's settings: code defaults < config defaults < table properties < its config entry."""
    where = f"tables.{table}"
    if entry is None:
        entry = {}
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: expected a mapping of settings, got {entry!r}")
    _check_sections(entry, where)
    from_properties = settings_from_properties(properties or {}, POLICY_CLASSES, TOP_LEVEL_POLICIES, str(table))
    merged, origins = layered(defaults, entry, from_properties, str(table), POLICY_SETTINGS)
    data = {k: v for k, v in entry.items() if k not in POLICY_CLASSES and k not in TOP_LEVEL_POLICIES and k != "create"}
    data.update({section: values for section, values in merged.items() if section})
    data.update(merged.get("", {}))
    key = tuple(data.get("key") or ())
    definition = parse_definition(entry["create"], f"{where}.create", key) if entry.get("create") is not None else None
    try:
        return build(TableConfig, data, where, name=str(table), create=definition, discovered=discovered,
                     origins=origins, entry=entry, defaults=defaults)
    except ConfigError as e:
        if not from_properties:
            raise
        applied = ", ".join(sorted(str(origin.detail) for _, origin in from_properties.values()))
        raise ConfigError(f"{e} (table {table} has the properties {applied}; fix them with ALTER TABLE ... "
                          "SET TBLPROPERTIES, or override the setting in the table's config entry)") from e
