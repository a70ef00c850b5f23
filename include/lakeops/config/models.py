"""ETL models declared in the config's `models` section: a downstream table defined by a Spark SQL SELECT (or a
Python function) over source tables, with its key, its partition column and how each source's changes are read."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lakeops.config.build import build
from lakeops.exceptions import ConfigError
from lakeops.tables.identifier import validate_name

SOURCE_KINDS = ("append", "changelog")
PARTITION_GRAINS = ("day", "hour")
_PYTHON_REF = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")
_CRON = re.compile(r"(\S+\s+){4}\S+|@(hourly|daily|weekly|monthly)")


@dataclass(frozen=True)
class ModelSourceConfig:
    """One source of a model, under the name the model's SQL reads it by (a temporary view)."""

    table: str = ""
    """The source table (namespace.table, or a bare name in catalog.namespace); default: the source's name."""
    kind: str = "append"
    """append: rows are only added (an incremental run reads the snapshots appended since the watermark); changelog:
    rows are inserted, updated and deleted (an incremental run reads the changes since the watermark, merge-on-read
    delete files included)."""
    keys: dict[str, str] = field(default_factory=dict)
    """For each of the model's `recompute_by` columns, the Spark SQL expression over this source's columns that gives
    it (default: the column of the same name). A changed source row makes the model recompute exactly the rows with
    those values."""
    time_column: str | None = None
    """The source column whose time puts a row in the model's partition (same day, or hour with partition_grain hour):
    backfills read only the source rows of their dates, incremental runs only those of the touched periods. Unset:
    the source is read whole, filtered by the recompute keys."""


@dataclass(frozen=True)
class ModelConfig:
    """An ETL model: a downstream table kept up to date from its sources, incrementally and exactly once."""

    name: str
    """The model's name (the key under `models`): its DAG `etl.<name>`, its CLI argument."""
    sql: str | None = None
    """Path of the file holding the model's Spark SQL SELECT (relative to the config file); it reads each source by
    its name under `sources`."""
    python: str | None = None
    """Instead of sql: `module:function` taking (spark, {source name: DataFrame}) and returning the model's rows."""
    table: str = ""
    """The downstream table; default: the model's name. Its entry under `tables` may declare its columns and
    partitioning (`create`); without one, the first run creates it from the SELECT's columns, partitioned by the day
    of partition_column."""
    key: tuple[str, ...] = ()
    """The model's row key: one row per key (an incremental run that recomputes two rows for one key fails)."""
    recompute_by: tuple[str, ...] = ()
    """Columns of the model whose values a source change maps to (see each source's `keys`): every model row with an
    affected value is recomputed; default: key."""
    partition_column: str = ""
    """The model's time column (a timestamp or a date) a backfill date maps to: a backfill of a date overwrites the
    rows whose value falls on it (its UTC day, as Iceberg's day partitions): by metadata when the table is partitioned
    by day or hour of it, else by a `MERGE` confined to the date."""
    partition_grain: str = "day"
    """day or hour: the period of the sources' time_column that one value of partition_column depends on."""
    sources: dict[str, Any] = field(default_factory=dict)
    """Source name (as the SQL reads it) -> table, kind, keys, time_column."""
    schedule: str | None = None
    """A cron expression (a real data interval); unset: the model runs whenever one of its sources commits."""
    full_recompute_share: float = 0.5
    """An incremental run recomputes the whole table instead when a changelog source's changed files, read at both
    snapshots, or an append source's files appended since the watermark, come to at least this share of the source's
    live bytes: it would read more than a full run (it also reads the source for the affected keys). 0: never."""
    lag_sla_minutes: int | None = None
    """Alert when a source's commit has waited longer than this for the model to read it (the oldest commit its
    watermarks have not read); unset: no such alert. Unlike the table's freshness SLA, a quiet source never breaches
    it: it measures the model's delay, not the data's age."""
    config_dir: str = field(default="", compare=False, repr=False)

    def __post_init__(self) -> None:
        where = f"models.{self.name}"
        validate_name(self.name, "models")
        if (self.sql is None) == (self.python is None):
            raise ConfigError(f"{where}: give exactly one of sql (a file holding a SELECT) or python (module:function); "
                              f"got sql={self.sql!r}, python={self.python!r}")
        if self.python is not None and not _PYTHON_REF.fullmatch(self.python):
            raise ConfigError(f"{where}.python: {self.python!r} must be module:function, e.g. my_models.sessions:build")
        if self.sql is not None and not self.sql_path.is_file():
            raise ConfigError(f"{where}.sql: file {str(self.sql_path)!r} does not exist; the path is relative to the "
                              "config file")
        if not self.key:
            raise ConfigError(f"{where}.key: a model needs its key columns (the MERGE matches on them), e.g. [order_id]")
        for column in (*self.key, *self.recompute_by, self.partition_column):
            validate_name(column, f"{where} column")
        if self.partition_grain not in PARTITION_GRAINS:
            raise ConfigError(f"{where}.partition_grain: {self.partition_grain!r}; use one of {', '.join(PARTITION_GRAINS)}")
        if self.schedule is not None and not _CRON.fullmatch(self.schedule.strip()):
            raise ConfigError(f"{where}.schedule: {self.schedule!r} is not a cron expression (five fields, e.g. "
                              "'0 * * * *', or @hourly); leave it unset to run when a source commits")
        if not isinstance(self.full_recompute_share, int | float) or self.full_recompute_share < 0:
            raise ConfigError(f"{where}.full_recompute_share: {self.full_recompute_share!r} must be a number of 0 or more "
                              "(0.5: a change read of half the source's bytes recomputes in full; 0: never)")
        if self.lag_sla_minutes is not None and (isinstance(self.lag_sla_minutes, bool)
                                                 or not isinstance(self.lag_sla_minutes, int) or self.lag_sla_minutes < 1):
            raise ConfigError(f"{where}.lag_sla_minutes: {self.lag_sla_minutes!r} must be a whole number of minutes, at "
                              "least 1 (or leave it unset: no lag alert)")
        if not self.sources:
            raise ConfigError(f"{where}.sources: a model reads at least one source, e.g. {{events: {{kind: append}}}}")
        for name, source in self.sources.items():
            validate_name(name, f"{where}.sources")
            if not isinstance(source, ModelSourceConfig):
                raise ConfigError(f"{where}.sources.{name}: {source!r} is not a source; build the model with parse_models")
            if source.kind not in SOURCE_KINDS:
                raise ConfigError(f"{where}.sources.{name}.kind: {source.kind!r}; use one of {', '.join(SOURCE_KINDS)}")
            unknown = [k for k in source.keys if k not in self.recompute_columns]
            if unknown:
                raise ConfigError(f"{where}.sources.{name}.keys: {unknown[0]!r} is not a recompute_by column of the model "
                                  f"({', '.join(self.recompute_columns)}); map only those")
            if source.time_column is not None:
                validate_name(source.time_column, f"{where}.sources.{name}.time_column")

    @property
    def table_name(self) -> str:
        return self.table or self.name

    @property
    def recompute_columns(self) -> tuple[str, ...]:
        return self.recompute_by or self.key

    @property
    def sql_path(self) -> Path:
        return Path(self.config_dir) / (self.sql or "")

    def source(self, name: str) -> ModelSourceConfig:
        found: ModelSourceConfig = self.sources[name]
        return found

    def source_table(self, name: str) -> str:
        """The table a source names: the watermark key of its snapshot."""
        return self.source(name).table or name

    def key_expressions(self, name: str) -> dict[str, str]:
        """recompute column -> SQL expression over the source `name`."""
        keys = self.source(name).keys
        return {column: keys.get(column, column) for column in self.recompute_columns}

    @property
    def span_pruning(self) -> bool:
        """Whether an incremental run confines its reads and its MERGE to the touched periods: the partition
        column is one of the recompute columns, so the affected rows name their periods."""
        return self.partition_column in self.recompute_columns


def parse_models(data: Any, base_dir: Path) -> dict[str, ModelConfig]:
    """The config's `models` section, validated."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"models: {data!r} must be a mapping of model name to settings")
    models = {}
    for name, entry in data.items():
        where = f"models.{name}"
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: expected a mapping of settings, got {entry!r}")
        raw_sources = entry.get("sources")
        if not isinstance(raw_sources, dict):
            raise ConfigError(f"{where}.sources: {raw_sources!r} must be a mapping of source name to settings, e.g. "
                              "{events: {kind: append}}")
        sources = {str(s): build(ModelSourceConfig, v, f"{where}.sources.{s}") for s, v in raw_sources.items()}
        rest = {k: v for k, v in entry.items() if k != "sources"}
        if "partition_column" not in rest:
            raise ConfigError(f"{where}: required key 'partition_column' is missing; name the model's time column a "
                              "backfill date maps to")
        models[str(name)] = build(ModelConfig, rest, where, name=str(name), sources=sources,
                                  config_dir=str(base_dir))
    return models
