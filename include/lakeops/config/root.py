"""The whole configuration file: catalog, Spark, defaults, discovery rules, tables, alerts, health history."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lakeops.catalogs.config import CatalogConfig
from lakeops.config.build import build
from lakeops.config.models import ModelConfig, parse_models
from lakeops.config.services import AlertsConfig, HealthConfig, SparkConfig
from lakeops.config.table import TableConfig, build_table, parse_defaults
from lakeops.exceptions import ConfigError
from lakeops.tables.discovery import DiscoveryRule, matches_any
from lakeops.tables.identifier import TableId

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog

CONFIG_ENV = "LAKEOPS_CONFIG"
TOP_LEVEL_KEYS = ("catalog", "spark", "landing_dir", "defaults", "discover", "tables", "models", "alerts", "health")


@dataclass(frozen=True)
class LakeopsConfig:
    catalog: CatalogConfig = field(default_factory=CatalogConfig)
    spark: SparkConfig = field(default_factory=SparkConfig)
    landing_dir: str | None = None
    tables: dict[str, TableConfig] = field(default_factory=dict)
    """Configured tables by identifier (namespace.table)."""
    alerts: AlertsConfig = field(default_factory=AlertsConfig)
    health: HealthConfig = field(default_factory=HealthConfig)
    defaults: dict[str, Any] = field(default_factory=dict)
    """Policies every table starts from (raw, validated): below each table's properties and its entry."""
    discover: tuple[DiscoveryRule, ...] = ()
    models: dict[str, ModelConfig] = field(default_factory=dict)
    """ETL models by name (lakeops.config.models)."""

    def model(self, name: str) -> ModelConfig:
        """A configured ETL model, or ConfigError naming the configured ones."""
        found = self.models.get(name)
        if found is None:
            raise ConfigError(f"model {name!r} is not in the config's models; configured models: "
                              f"{', '.join(self.models) or 'none'}")
        return found

    def model_writing(self, table: str | TableId) -> ModelConfig | None:
        """The model whose table this is, if any (the config refuses two models writing one table)."""
        identifier = self.identifier(table)
        return next((m for m in self.models.values() if self.identifier(m.table_name) == identifier), None)

    @property
    def landing_root(self) -> str:
        return self.landing_dir or str(Path(self.catalog.data_dir) / "landing")

    def table_id(self, name: str | TableId) -> TableId:
        """A table name as a user writes it: namespace.table, or a bare name in catalog.namespace."""
        return TableId.parse(name, self.catalog.namespace)

    def table(self, name: str | TableId) -> TableConfig:
        """A configured table, or a table a discovery rule brings in (its settings from the defaults)."""
        table = self.table_id(name)
        found = self.tables.get(str(table))
        if found is not None:
            return found
        if matches_any(self.discover, table):
            return build_table(table, {}, self.defaults, discovered=True)
        rules = "; ".join(f"namespaces {list(r.namespaces)} include {list(r.include)}" for r in self.discover) or "none"
        raise ConfigError(f"table {str(name)!r} is not in the config file and no discovery rule brings it in; configured "
                          f"tables: {', '.join(self.tables) or 'none'}; discovery rules: {rules}")

    def identifier(self, table: str | TableId) -> str:
        """namespace.table, as pyiceberg names it, validated."""
        return str(self.table_id(table))

    def qualified(self, table: str | TableId) -> str:
        """`catalog`.`namespace`.`table`, as Spark SQL names it."""
        return self.table_id(table).spark(self.catalog.name)

    def maintained(self, catalog: Catalog) -> list[TableId]:
        """Every table lakeops maintains now: the configured ones and those the discovery rules find in the catalog."""
        from lakeops.tables.discovery import discover

        found = {self.table_id(name) for name in self.tables}
        if self.discover:
            found.update(discover(catalog, self.discover))
        return sorted(found)


def _parse_discover(data: Any) -> tuple[DiscoveryRule, ...]:
    if data is None:
        return ()
    if not isinstance(data, list):
        raise ConfigError(f"discover: {data!r} must be a list of rules, e.g. [{{namespaces: [analytics], exclude: ['tmp_*']}}]")
    return tuple(build(DiscoveryRule, rule, f"discover[{i}]") for i, rule in enumerate(data))


def parse_config(data: Any, base_dir: Path) -> LakeopsConfig:
    """Build a validated config from parsed YAML. Relative paths resolve against base_dir."""
    if not isinstance(data, dict):
        raise ConfigError(f"config: the file must hold a mapping with keys {', '.join(TOP_LEVEL_KEYS)}; got {data!r}")
    unknown = [k for k in data if k not in TOP_LEVEL_KEYS]
    if unknown:
        raise ConfigError(f"config: unknown key {unknown[0]!r}; allowed keys are {', '.join(TOP_LEVEL_KEYS)}")
    raw_tables = data.get("tables") or {}
    if not isinstance(raw_tables, dict):
        raise ConfigError(f"tables: {raw_tables!r} must be a mapping of table identifier (namespace.table) to settings")
    defaults = parse_defaults(data.get("defaults"))
    rest = {k: v for k, v in data.items() if k not in ("tables", "defaults", "discover", "models")}
    config: LakeopsConfig = build(LakeopsConfig, rest, "", defaults=defaults, discover=_parse_discover(data.get("discover")))
    tables: dict[str, TableConfig] = {}
    for name, entry in raw_tables.items():
        table = TableId.parse(str(name), config.catalog.namespace, what="tables")
        if str(table) in tables:
            raise ConfigError(f"tables: {name!r} names {table}, which is configured twice; keep one entry")
        tables[str(table)] = build_table(table, entry, defaults)
    catalog = dataclasses.replace(config.catalog, data_dir=str((base_dir / config.catalog.data_dir).resolve()))
    landing = config.landing_dir
    if landing and "://" not in landing:
        landing = str((base_dir / landing).resolve())
    models = parse_models(data.get("models"), base_dir)
    _check_model_tables(models, config.catalog.namespace)
    for model in models.values():
        # A model's table without an entry is configured with the defaults: its health, compaction and expiry (which
        # keeps its watermark snapshots) as any table's; its first run creates it from the SELECT.
        target = TableId.parse(model.table_name, config.catalog.namespace)
        tables.setdefault(str(target), build_table(target, {}, defaults))
    return dataclasses.replace(config, catalog=catalog, landing_dir=landing, tables=tables, models=models)


def _check_model_tables(models: dict[str, ModelConfig], namespace: str) -> None:
    """Every model's table is written by that model only, its source names are table identifiers, and no model reads
    its own table through other models."""
    writers: dict[str, str] = {}
    reads: dict[str, set[str]] = {}
    for model in models.values():
        reads[model.name] = {str(TableId.parse(model.source_table(name), namespace,
                                               what=f"models.{model.name}.sources.{name}.table")) for name in model.sources}
        target = str(TableId.parse(model.table_name, namespace, what=f"models.{model.name}.table"))
        if target in writers:
            raise ConfigError(f"models.{model.name}: its table {target} is the table of models.{writers[target]} too; "
                              "a model's table holds that model's rows and watermarks only: give one of them its own "
                              "table (models.<name>.table)")
        writers[target] = model.name
    upstream = {name: sorted(writers[t] for t in read if t in writers) for name, read in reads.items()}
    for name in sorted(upstream):
        cycle = _cycle_from(name, upstream, [name])
        if cycle:
            raise ConfigError(f"models: {' -> '.join(cycle)} read each other's tables (each reads the next one's), "
                              "so each run's commit would start the next model's run, forever; a model must not "
                              "read its own table, directly or through other models: remove one of those sources")


def _cycle_from(name: str, upstream: dict[str, list[str]], path: list[str]) -> list[str] | None:
    """The first path of models back to path[0] through the tables they read, if any."""
    for other in upstream[name]:
        if other == path[0]:
            return [*path, other]
        if other not in path:
            found = _cycle_from(other, upstream, [*path, other])
            if found:
                return found
    return None


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
        raise ConfigError(f"config file {str(config_path)!r} cannot be read ({e.strerror}); set {CONFIG_ENV} to the path of "
                          "lakeops.yaml") from e
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ConfigError(f"config file {str(config_path)!r} is not valid YAML: {e}") from e
    return parse_config(data, config_path.resolve().parent)


def load_alerts_config(path: str | Path | None = None) -> AlertsConfig:
    """Only the `alerts` section of the config file: what DAG files need to declare their deadline
    alerts. It reads one local file and nothing else, so it is cheap enough for DAG parsing; cached
    per file version."""
    config_path = Path(path) if path else default_config_path()
    try:
        mtime = config_path.stat().st_mtime_ns
    except OSError as e:
        raise ConfigError(f"config file {str(config_path)!r} cannot be read ({e.strerror}); set {CONFIG_ENV} to the path of "
                          "lakeops.yaml") from e
    return _alerts_config_cached(str(config_path.resolve()), mtime)


@functools.lru_cache(maxsize=8)
def _alerts_config_cached(path: str, mtime_ns: int) -> AlertsConfig:
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text())
    except yaml.YAMLError as e:
        raise ConfigError(f"config file {path!r} is not valid YAML: {e}") from e
    section = data.get("alerts") if isinstance(data, dict) else None
    alerts: AlertsConfig = build(AlertsConfig, section, "alerts")
    return alerts
