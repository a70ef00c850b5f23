"""The lakeops configuration file: one YAML file listing the catalog, Spark and tables.

Every section is a frozen dataclass validated on construction. Unknown keys and bad
values raise ConfigError naming the key, the value received and the fix. Values may
use ``${VAR}`` or ``${VAR:-default}`` to read the environment; relative paths are
resolved against the directory of the config file.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lakeops.exceptions import ConfigError
from lakeops.schemas import BUILTIN_SCHEMAS, column_names

CONFIG_ENV = "LAKEOPS_CONFIG"
CATALOG_KINDS = ("embedded", "rest")
_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]{0,62}")
_TRANSFORM = re.compile(r"^(?:(year|month|day|hour)\((\w+)\)|bucket\((\d+),\s*(\w+)\)|truncate\((\d+),\s*(\w+)\)|(\w+))$")
_ENV_REF = re.compile(r"\$\{(\w+)(?::-([^}]*))?\}")


def validate_identifier(value: str, what: str) -> str:
    """Table, namespace and column names reach SQL: allow only plain lower-case identifiers."""
    if not isinstance(value, str) or not _IDENTIFIER.fullmatch(value):
        raise ConfigError(
            f"{what}: {value!r} is not a valid identifier; use lower-case letters, digits and "
            "underscores, starting with a letter or underscore (at most 63 characters)"
        )
    return value


def partition_source_column(transform: str) -> str:
    """The column a partition transform reads: 'day(event_time)' -> 'event_time'."""
    match = _TRANSFORM.match(transform.strip())
    if not match:
        raise ConfigError(
            f"partition_by: {transform!r} is not a partition transform; use a column name or "
            "year(col), month(col), day(col), hour(col), bucket(N, col), truncate(N, col)"
        )
    return next(g for g in (match.group(2), match.group(4), match.group(6), match.group(7)) if g)


@dataclass(frozen=True)
class CatalogConfig:
    kind: str = "embedded"
    name: str = "lakeops"
    namespace: str = "lakeops"
    data_dir: str = ".lakeops"
    uri: str | None = None
    warehouse: str | None = None
    s3_endpoint: str | None = None
    s3_region: str = "us-east-1"
    s3_path_style_access: bool = True

    def __post_init__(self) -> None:
        if self.kind not in CATALOG_KINDS:
            raise ConfigError(f"catalog.kind: {self.kind!r} is not supported; use one of {', '.join(CATALOG_KINDS)}")
        validate_identifier(self.name, "catalog.name")
        validate_identifier(self.namespace, "catalog.namespace")
        if self.kind == "rest":
            for key in ("uri", "warehouse"):
                if not getattr(self, key):
                    raise ConfigError(f"catalog.{key}: required when catalog.kind is 'rest'; set it to the REST catalog's {key}")

    @property
    def sqlite_path(self) -> Path:
        return Path(self.data_dir) / "catalog.db"

    @property
    def warehouse_location(self) -> str:
        if self.kind == "embedded":
            return (Path(self.data_dir) / "warehouse").as_uri()
        assert self.warehouse is not None
        return self.warehouse


@dataclass(frozen=True)
class SparkConfig:
    conn_id: str = "lakeops_spark"
    conf: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for key, value in self.conf.items():
            if not key.startswith("spark."):
                raise ConfigError(f"spark.conf: key {key!r} is not a Spark setting; Spark settings start with 'spark.'")
            if not isinstance(value, str):
                raise ConfigError(f"spark.conf.{key}: {value!r} must be a string; quote it in the YAML file")


@dataclass(frozen=True)
class ZonemapConfig:
    columns: tuple[str, ...] = ()
    bloom_columns: tuple[str, ...] = ()
    hot_memory_mb: int = 64
    """Bound of the in-memory (hot) micro/hourly entries per process; older ranges are read from the daily master on disk."""

    def __post_init__(self) -> None:
        if isinstance(self.hot_memory_mb, bool) or not isinstance(self.hot_memory_mb, int) or not 1 <= self.hot_memory_mb <= 65536:
            raise ConfigError(f"zonemap.hot_memory_mb: {self.hot_memory_mb!r} must be a whole number of MiB between 1 and 65536; "
                              "64 holds the entries of about 100,000 files")


PARTIAL_PROGRESS_MODES = ("on_conflict", "always")


@dataclass(frozen=True)
class CompactionPolicy:
    target_file_size_mb: int = 128
    small_file_fraction: float = 0.75
    min_small_files: int = 100
    delete_file_threshold: int = 10
    delete_ratio_threshold: float = 0.3
    max_bytes_per_run_mb: int = 10240
    fragment_fraction: float = 0.125
    """Amoro's fragment: a file under target x 1/8."""
    min_fragment_files: int = 12
    """Amoro's minor-optimize trigger: 12 fragment files in a partition."""
    manifest_rewrite_threshold: int = 100
    max_concurrent_file_group_rewrites: int = 2
    max_commits_per_call: int = 3
    """Iceberg's partial-progress.max-commits (default 10): with partial progress on, one call's file groups are
    committed in at most this many commits, so a group that conflicts sinks at most a third of the call (the
    runner's retry redoes it); each commit rewrites the table metadata, which costs more than rewriting a small
    partition."""
    partial_progress: str = "on_conflict"
    """When a rewrite call uses Iceberg's partial progress. "on_conflict": the first attempt commits the call
    once without it, and the attempts after a conflicting commit use it, so a group that conflicts again is left
    out alone; "always": every attempt uses it. Iceberg 1.11's partial-progress committer spins a driver core
    while file groups are being rewritten (apache/iceberg#12086): on the compaction benchmark's table one call of
    14 partitions cost 2.05 CPU s with it (3 commits) and 1.56 without (benchmarks/results/compaction_call.md). A
    conflict needs a writer deleting rows of a file being rewritten in the seconds a call takes; its retry plans
    again on the new state."""
    max_file_amplification: float | None = 1.5
    """Whole table: compact when a full scan opens this many times the files of a compacted copy
    (lakeops.health.layout), folding the partitions that save the most files first; None: off."""
    max_dangling_delete_files: int = 100
    """A data rewrite leaves the replaced files' delete files dangling: readers skip them, but every
    scan's planning still reads their manifest entries. Once this many have piled up, the next run
    drops them all after its rewrites (lakeops.spark.dangling: one metadata-only commit, no Spark
    job), instead of paying a commit on every run; 0 drops what each data rewrite leaves at once.
    A hundred entries cost a scan's planning next to nothing (the compaction benchmark's tuned cron
    reads at fresh speed with 200)."""

    def __post_init__(self) -> None:
        if self.target_file_size_mb <= 0:
            raise ConfigError(f"compaction.target_file_size_mb: {self.target_file_size_mb} must be positive; 128 is Iceberg's default")
        for key in ("small_file_fraction", "delete_ratio_threshold"):
            value = getattr(self, key)
            if not 0 < value <= 1:
                raise ConfigError(f"compaction.{key}: {value} must be in (0, 1]")
        for key in ("min_small_files", "delete_file_threshold", "max_bytes_per_run_mb"):
            if getattr(self, key) < 1:
                raise ConfigError(f"compaction.{key}: {getattr(self, key)} must be at least 1")
        if not 0 < self.fragment_fraction < self.small_file_fraction:
            raise ConfigError(f"compaction.fragment_fraction: {self.fragment_fraction} must be in (0, small_file_fraction "
                              f"{self.small_file_fraction}); Amoro's fragments are files under target/8 (0.125)")
        for key in ("min_fragment_files", "manifest_rewrite_threshold", "max_concurrent_file_group_rewrites",
                    "max_commits_per_call"):
            if getattr(self, key) < 1:
                raise ConfigError(f"compaction.{key}: {getattr(self, key)} must be at least 1")
        if self.partial_progress not in PARTIAL_PROGRESS_MODES:
            raise ConfigError(f"compaction.partial_progress: {self.partial_progress!r} is not one of "
                              f"{', '.join(PARTIAL_PROGRESS_MODES)}; on_conflict (the default) turns it on for the "
                              "retries after a conflicting commit")
        if self.max_dangling_delete_files < 0:
            raise ConfigError(f"compaction.max_dangling_delete_files: {self.max_dangling_delete_files} must be 0 or more "
                              "(0 drops dangling delete files on every run)")
        if self.max_file_amplification is not None and self.max_file_amplification <= 1.0:
            raise ConfigError(f"compaction.max_file_amplification: {self.max_file_amplification} must be above 1.0 "
                              "(1.0 is a freshly compacted table), e.g. 1.5; or null to turn the table-wide trigger off")


@dataclass(frozen=True)
class RetentionPolicy:
    max_snapshot_age_hours: int = 120
    min_snapshots: int = 1
    orphan_min_age_hours: int = 72
    protected_refs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.min_snapshots < 1:
            raise ConfigError(f"retention.min_snapshots: {self.min_snapshots} must be at least 1; the current snapshot is always kept")
        if self.orphan_min_age_hours < 24:
            raise ConfigError(
                f"retention.orphan_min_age_hours: {self.orphan_min_age_hours} is shorter than the safe minimum of 24 hours; "
                "files of writes still in flight would be deleted. Use 24 or more (Iceberg's default is 72)"
            )
        if self.max_snapshot_age_hours < 1:
            raise ConfigError(f"retention.max_snapshot_age_hours: {self.max_snapshot_age_hours} must be at least 1")


@dataclass(frozen=True)
class HealthThresholds:
    """When the health sensors fire for a partition (see README "Table health").

    max_read_amp_files 1.5: half of the data files drag a delete file along (file-scoped deletes
    and deletion vectors cap the figure at 2.0; partition-scoped ones grow without bound).
    max_read_amp_bytes unset: derived from compaction.delete_ratio_threshold (Iceberg's 0.3 gives
    1 / (1 - 0.3) = 1.43 bytes read per live byte). max_delete_files_per_hour 12: Amoro's minor
    optimizing trigger of 12 fragment files, as a rate.
    """

    max_read_amp_files: float = 1.5
    max_read_amp_bytes: float | None = None
    max_delete_files_per_hour: float = 12.0

    def __post_init__(self) -> None:
        for key in ("max_read_amp_files", "max_read_amp_bytes"):
            value = getattr(self, key)
            if value is not None and value <= 1.0:
                raise ConfigError(f"health.{key}: {value} must be above 1.0 (1.0 is a clean table), e.g. 1.5")
        if self.max_delete_files_per_hour <= 0:
            raise ConfigError(f"health.max_delete_files_per_hour: {self.max_delete_files_per_hour} must be positive, e.g. 12")


STREAM_MAX_RUN_SECONDS = 6 * 3600
"""Longest supervised run of a streaming query; the supervising DAG's task timeout is derived from it."""


@dataclass(frozen=True)
class StreamingConfig:
    """Streaming ingest of a table (README "Streaming ingest"): a Structured Streaming query over the
    landing zone, run either as availableNow micro-batches per DAG run or as a supervised long-running
    query with a processing-time trigger."""

    checkpoint_location: str | None = None
    """Absolute path or URI of the query's checkpoint; default <warehouse>/_checkpoints/<namespace>/<table>,
    beside the table's folder and outside its location, so nothing that manages the table's files lists it."""
    max_files_per_trigger: int = 100
    """Landed files one micro-batch reads at most: bounds a batch after an outage (availableNow splits the backlog)."""
    trigger_interval_seconds: int = 15
    """Processing-time trigger of the long-running query: how often it looks for new files."""
    run_seconds: int = 3600
    """How long one supervised run lasts before it stops gracefully (the next run resumes from the checkpoint)."""
    stop_timeout_seconds: int = 120
    """At the end of a supervised run, how long to wait for the running micro-batch to finish before stopping anyway."""

    def __post_init__(self) -> None:
        location = self.checkpoint_location
        if location == "":
            object.__setattr__(self, "checkpoint_location", None)  # an unset ${VAR:-} in the file
        elif location is not None and "://" not in location and not location.startswith("/"):
            raise ConfigError(f"streaming.checkpoint_location: {location!r} is relative; use an absolute path or a URI "
                              "(e.g. s3a://bucket/checkpoints/events), or leave it unset for the warehouse default")
        bounds = {"max_files_per_trigger": (1, 100_000, "100"), "trigger_interval_seconds": (1, 3600, "15"),
                  "run_seconds": (10, STREAM_MAX_RUN_SECONDS, "3600"), "stop_timeout_seconds": (10, 3600, "120")}
        for key, (low, high, example) in bounds.items():
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ConfigError(f"streaming.{key}: {value!r} must be a whole number from {low} to {high}, e.g. {example}")
        if self.trigger_interval_seconds >= self.run_seconds:
            raise ConfigError(f"streaming.trigger_interval_seconds: {self.trigger_interval_seconds} must be shorter than "
                              f"streaming.run_seconds ({self.run_seconds}); a supervised run would end before its first trigger")


INGEST_MODES = ("batch", "streaming")
COMMIT_MODES = ("direct", "staged")
MAX_WRITERS = 64
# Staged commits and streaming append parsed events; CDC tables are merged (MERGE INTO) and commit directly.
STAGED_SCHEMAS = ("events",)


@dataclass(frozen=True)
class IngestConfig:
    """How a table is ingested (README "Streaming ingest", "Staged writers and one committer").

    mode: which DAGs ingest the table's landed files: batch (ingest_events, one batch per data
    interval) or streaming (stream_events / stream_events_supervisor). Exactly one may: both would
    commit every landed file twice under different batch ids, so each refuses the other's tables.

    direct: one Spark job per data interval writes its files and commits them itself.
    staged: `writers` Spark jobs each write a disjoint share of the interval's files into the
    table's staging area and publish a manifest; one committer commits them all in one commit.
    Staging left by dead writers (or a committer killed before its clean-up) is deleted once it
    is older than staging_max_age_hours."""

    mode: str = "batch"
    commit_mode: str = "direct"
    writers: int = 4
    """Parallel writer tasks per run in staged mode (ignored in direct mode)."""
    staging_max_age_hours: float = 24.0

    def __post_init__(self) -> None:
        if self.mode not in INGEST_MODES:
            raise ConfigError(f"ingest.mode: {self.mode!r} is not an ingest mode; use batch (the ingest_events DAG, one "
                              "batch per data interval) or streaming (the stream_events DAGs)")
        if self.mode == "streaming" and self.commit_mode != "direct":
            raise ConfigError(f"ingest.commit_mode: {self.commit_mode!r} applies to batch ingest; a streaming query commits "
                              "each micro-batch itself. Use commit_mode: direct with mode: streaming")
        if self.commit_mode not in COMMIT_MODES:
            raise ConfigError(f"ingest.commit_mode: {self.commit_mode!r} is not a commit mode; use direct (each run commits "
                              "its own batch) or staged (parallel writers, one committer)")
        if isinstance(self.writers, bool) or not isinstance(self.writers, int) or not 1 <= self.writers <= MAX_WRITERS:
            raise ConfigError(f"ingest.writers: {self.writers!r} must be a whole number of writer tasks between 1 and "
                              f"{MAX_WRITERS}; each one is a Spark job, so keep it within the lakeops_spark pool's slots")
        if not 1 <= self.staging_max_age_hours <= 720:
            raise ConfigError(f"ingest.staging_max_age_hours: {self.staging_max_age_hours} must be between 1 and 720 hours; "
                              "staging younger than this is never deleted, so it must outlast the slowest writer-to-commit run")


@dataclass(frozen=True)
class TableConfig:
    name: str
    schema: str
    source: str | None = None
    partition_by: tuple[str, ...] = ()
    sort_by: tuple[str, ...] = ()
    ingest_interval_minutes: int = 5
    freshness_sla_minutes: int = 30
    zonemap: ZonemapConfig = field(default_factory=ZonemapConfig)
    compaction: CompactionPolicy = field(default_factory=CompactionPolicy)
    retention: RetentionPolicy = field(default_factory=RetentionPolicy)
    health: HealthThresholds = field(default_factory=HealthThresholds)
    streaming: StreamingConfig = field(default_factory=StreamingConfig)
    ingest: IngestConfig = field(default_factory=IngestConfig)

    def __post_init__(self) -> None:
        where = f"tables.{self.name}"
        validate_identifier(self.name, "tables: table name")
        if self.schema not in BUILTIN_SCHEMAS:
            raise ConfigError(f"{where}.schema: {self.schema!r} is unknown; use one of {', '.join(sorted(BUILTIN_SCHEMAS))}")
        known = column_names(self.schema)
        columns = [partition_source_column(t) for t in self.partition_by]
        columns += list(self.sort_by) + list(self.zonemap.columns) + list(self.zonemap.bloom_columns)
        for column in columns:
            if column not in known:
                raise ConfigError(f"{where}: column {column!r} is not in schema {self.schema!r}; known columns: {', '.join(known)}")
        if not set(self.zonemap.bloom_columns) <= set(self.zonemap.columns):
            raise ConfigError(f"{where}.zonemap.bloom_columns: {list(self.zonemap.bloom_columns)} must also be listed in zonemap.columns")
        if self.freshness_sla_minutes < 1:
            raise ConfigError(f"{where}.freshness_sla_minutes: {self.freshness_sla_minutes} must be at least 1")
        if self.ingest_interval_minutes < 1 or 60 % self.ingest_interval_minutes:
            raise ConfigError(f"{where}.ingest_interval_minutes: {self.ingest_interval_minutes} must divide an hour (1, 2, 5, 10, 15, 30, 60)")
        if self.ingest.mode == "streaming" and self.schema not in STAGED_SCHEMAS:
            raise ConfigError(f"{where}.ingest.mode: 'streaming' reads landed events (schema events), but this table has "
                              f"schema {self.schema!r}, which the CDC ingest merges or the ETL writes; use mode: batch")
        if self.ingest.commit_mode == "staged":
            if self.schema not in STAGED_SCHEMAS:
                raise ConfigError(f"{where}.ingest.commit_mode: 'staged' ingests landed events (schema events), but this table has "
                                  f"schema {self.schema!r}, which the CDC ingest merges or the ETL writes; use commit_mode: direct")
            if self.ingest.staging_max_age_hours >= self.retention.orphan_min_age_hours:
                raise ConfigError(f"{where}.ingest.staging_max_age_hours: {self.ingest.staging_max_age_hours:g} is not below "
                                  f"retention.orphan_min_age_hours {self.retention.orphan_min_age_hours}; orphan removal could "
                                  "delete staged files a late committer still needs. Set it below that (default 24)")

    @property
    def quarantine_name(self) -> str:
        return f"{self.name}_quarantine"


DEFAULT_DEADLINE_MINUTES = 60


@dataclass(frozen=True)
class AlertsConfig:
    """Deadline alerts and where alerts go. Endpoints and credentials live in Airflow connections,
    named here; a missing connection turns its channel off (the task log always gets the alert)."""

    deadline_minutes: dict[str, int] = field(default_factory=dict)
    """Per DAG kind (ingest, compaction, ...): minutes a run may take from being queued to success."""
    default_deadline_minutes: int = DEFAULT_DEADLINE_MINUTES
    webhook_conn_id: str = "lakeops_alerts_webhook"
    email_conn_id: str = "lakeops_alerts_email"

    def __post_init__(self) -> None:
        for kind, minutes in self.deadline_minutes.items():
            validate_identifier(kind, "alerts.deadline_minutes: DAG kind")
            if isinstance(minutes, bool) or not isinstance(minutes, int) or minutes < 1:
                raise ConfigError(f"alerts.deadline_minutes.{kind}: {minutes!r} must be a whole number of minutes, at least 1")
        if self.default_deadline_minutes < 1:
            raise ConfigError(f"alerts.default_deadline_minutes: {self.default_deadline_minutes} must be at least 1")
        for key in ("webhook_conn_id", "email_conn_id"):
            if not getattr(self, key).strip():
                raise ConfigError(f"alerts.{key}: must name an Airflow connection id (a missing connection turns the channel off)")

    def deadline_for(self, kind: str) -> int:
        """Minutes a run of this DAG kind may take; the default for kinds not listed."""
        return self.deadline_minutes.get(kind, self.default_deadline_minutes)


@dataclass(frozen=True)
class HealthConfig:
    history_url: str | None = None
    """SQLAlchemy URL of the health-history database; default: the embedded catalog's SQLite file."""
    growth_window_hours: float = 1.0
    """Delete-file growth counts the delete files committed during this many past hours."""

    def __post_init__(self) -> None:
        if not 0 < self.growth_window_hours <= 168:
            raise ConfigError(f"health.growth_window_hours: {self.growth_window_hours} must be in (0, 168]; 1 is one hour")
        if self.history_url == "":
            object.__setattr__(self, "history_url", None)  # an unset ${VAR:-} in the file
        if self.history_url is not None and "://" not in self.history_url:
            raise ConfigError(f"health.history_url: {self.history_url!r} is not a database URL; "
                              "use e.g. postgresql+psycopg2://host/db or sqlite:////path/health.db")


@dataclass(frozen=True)
class LakeopsConfig:
    catalog: CatalogConfig = field(default_factory=CatalogConfig)
    spark: SparkConfig = field(default_factory=SparkConfig)
    landing_dir: str | None = None
    tables: dict[str, TableConfig] = field(default_factory=dict)
    alerts: AlertsConfig = field(default_factory=AlertsConfig)
    health: HealthConfig = field(default_factory=HealthConfig)

    @property
    def landing_root(self) -> str:
        return self.landing_dir or str(Path(self.catalog.data_dir) / "landing")

    def table(self, name: str) -> TableConfig:
        try:
            return self.tables[name]
        except KeyError:
            raise ConfigError(f"table {name!r} is not in the config file; configured tables: {', '.join(self.tables) or 'none'}") from None

    def identifier(self, table: str) -> str:
        """namespace.table, as pyiceberg names it, with the table name validated."""
        validate_identifier(table, "table")
        return f"{self.catalog.namespace}.{table}"

    def qualified(self, table: str) -> str:
        """catalog.namespace.table, as Spark names it."""
        return f"{self.catalog.name}.{self.identifier(table)}"


def _expand_env(value: str, where: str) -> str:
    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if os.environ.get(name):
            return os.environ[name]
        if default is None:
            raise ConfigError(f"{where}: environment variable {name} is not set; set it or write ${{{name}:-default}}")
        return default

    return _ENV_REF.sub(replace, value)


def _convert(value: Any, hint: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        return None if value is None else _convert(value, options[0], where)
    if dataclasses.is_dataclass(hint):
        return _build(hint, value, where)
    if origin is tuple:
        if isinstance(value, str) or not isinstance(value, list):
            raise ConfigError(f"{where}: {value!r} must be a list, e.g. [a, b]")
        return tuple(_convert(v, typing.get_args(hint)[0], f"{where}[{i}]") for i, v in enumerate(value))
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: {value!r} must be a mapping of keys to values")
        return {str(k): (_expand_env(v, f"{where}.{k}") if isinstance(v, str) else v) for k, v in value.items()}
    if hint is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: {value!r} must be true or false")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: {value!r} must be a whole number")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{where}: {value!r} must be a number")
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise ConfigError(f"{where}: {value!r} must be a string")
        return _expand_env(value, where)
    raise TypeError(f"unsupported config type {hint!r} at {where}")


def _build(cls: Any, data: Any, where: str, **extra: Any) -> Any:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping of settings, got {data!r}")
    hints = typing.get_type_hints(cls)
    allowed = [f.name for f in dataclasses.fields(cls) if f.name not in extra]
    unknown = [k for k in data if k not in allowed]
    if unknown:
        raise ConfigError(f"{where or 'config'}: unknown key {unknown[0]!r}; allowed keys are {', '.join(allowed)}")
    required = [f.name for f in dataclasses.fields(cls)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING and f.name not in extra]
    missing = [k for k in required if k not in data]
    if missing:
        raise ConfigError(f"{where}: required key {missing[0]!r} is missing; add it (keys: {', '.join(allowed)})")
    kwargs = {k: _convert(v, hints[k], f"{where}.{k}" if where else k) for k, v in data.items()}
    return cls(**kwargs, **extra)


def parse_config(data: Any, base_dir: Path) -> LakeopsConfig:
    """Build a validated config from parsed YAML. Relative paths resolve against base_dir."""
    if not isinstance(data, dict):
        raise ConfigError(f"config: the file must hold a mapping with keys catalog, spark, landing_dir, tables; got {data!r}")
    raw_tables = data.get("tables") or {}
    if not isinstance(raw_tables, dict):
        raise ConfigError(f"tables: {raw_tables!r} must be a mapping of table name to settings")
    tables = {name: _build(TableConfig, spec, f"tables.{name}", name=name) for name, spec in raw_tables.items()}
    config: LakeopsConfig = _build(LakeopsConfig, {k: v for k, v in data.items() if k != "tables"}, "")
    catalog = dataclasses.replace(config.catalog, data_dir=str((base_dir / config.catalog.data_dir).resolve()))
    landing = config.landing_dir
    if landing and "://" not in landing:
        landing = str((base_dir / landing).resolve())
    return dataclasses.replace(config, catalog=catalog, landing_dir=landing, tables=tables)


def default_config_path() -> Path:
    """$LAKEOPS_CONFIG, else the Airflow setting [lakeops] config_file, else (in a checkout) include/lakeops.yaml."""
    from lakeops.config_file import resolve_config_path

    return resolve_config_path()


def load_config(path: str | Path | None = None) -> LakeopsConfig:
    import yaml

    config_path = Path(path) if path else default_config_path()
    try:
        text = config_path.read_text()
    except OSError as e:
        raise ConfigError(f"config file {str(config_path)!r} cannot be read ({e.strerror}); set {CONFIG_ENV} to the path of lakeops.yaml") from e
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ConfigError(f"config file {str(config_path)!r} is not valid YAML: {e}") from e
    return parse_config(data, config_path.resolve().parent)


def load_alerts_config(path: str | Path | None = None) -> AlertsConfig:
    """Only the `alerts` section of the config file: what DAG files need to declare their
    deadline alerts. It reads one local file and touches no catalog, connection or environment
    variable of other sections, so it is cheap enough for DAG parsing; cached per file version."""
    config_path = Path(path) if path else default_config_path()
    try:
        mtime = config_path.stat().st_mtime_ns
    except OSError as e:
        raise ConfigError(f"config file {str(config_path)!r} cannot be read ({e.strerror}); set {CONFIG_ENV} to the path of lakeops.yaml") from e
    return _alerts_config_cached(str(config_path.resolve()), mtime)


@functools.lru_cache(maxsize=8)
def _alerts_config_cached(path: str, mtime_ns: int) -> AlertsConfig:
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text())
    except yaml.YAMLError as e:
        raise ConfigError(f"config file {path!r} is not valid YAML: {e}") from e
    section = data.get("alerts") if isinstance(data, dict) else None
    alerts: AlertsConfig = _build(AlertsConfig, section, "alerts")
    return alerts
