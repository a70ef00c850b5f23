"""Health history: every evaluation stored as rows of one SQL table, so trends can be plotted.

Where: `health.history_url` (a SQLAlchemy URL) when set, else the embedded catalog's SQLite
database (the file both Spark and pyiceberg already use). A REST catalog has no database of
ours, so it needs history_url (e.g. the Postgres Airflow uses, a dedicated schema).

Rows: one per evaluation for the whole table (partition IS NULL) and one per partition.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lakeops.exceptions import ConfigError
from lakeops.health.model import FileFigures, TableHealth

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from lakeops.config import LakeopsConfig

log = logging.getLogger(__name__)
HISTORY_TABLE = "lakeops_health_history"
_TABLE_ONLY = ("snapshot_id", "snapshots", "data_manifests", "delete_manifests", "last_commit_age_s")
_FIGURES = tuple(f.name for f in dataclasses.fields(FileFigures))


@dataclass(frozen=True)
class HealthPoint(FileFigures):
    """One stored evaluation of a table (partition None) or of one of its partitions."""

    table: str
    partition: str | None
    evaluated_at_ms: int
    snapshot_id: int | None
    last_commit_ms: int | None
    snapshots: int | None
    data_manifests: int | None
    delete_manifests: int | None
    last_commit_age_s: float | None


def _schema() -> Any:
    import sqlalchemy as sa

    metadata = sa.MetaData()
    hints = {f.name: f.type for f in dataclasses.fields(HealthPoint)}
    columns: list[sa.Column[Any]] = [sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
               sa.Column("table_name", sa.String(255), nullable=False),
               sa.Column("partition", sa.String(1024), nullable=True),
               sa.Column("evaluated_at_ms", sa.BigInteger, nullable=False)]
    for name in (*_FIGURES, "last_commit_ms", *_TABLE_ONLY):
        kind = sa.Float if "float" in str(hints[name]) else sa.BigInteger
        columns.append(sa.Column(name, kind, nullable=True))
    table = sa.Table(HISTORY_TABLE, metadata, *columns)
    sa.Index(f"{HISTORY_TABLE}_by_table_time", table.c.table_name, table.c.evaluated_at_ms)
    return metadata, table


_ENGINES: dict[str, Engine] = {}
_LOCK = threading.Lock()


def history_url(config: LakeopsConfig) -> str:
    if config.health.history_url:
        return config.health.history_url
    if config.catalog.kind == "embedded":
        return f"sqlite:///{config.catalog.sqlite_path}"
    raise ConfigError("health.history_url: not set and catalog.kind is 'rest', which has no database of ours; "
                      "set LAKEOPS_HEALTH_DB_URL (e.g. postgresql+psycopg2://user@host/db)")


def _add_missing_columns(engine: Engine, table: Any) -> None:
    """A history table an older lakeops created lacks the figures added since: add them, nullable,
    so its old rows read as unknown and new rows store everything."""
    import sqlalchemy as sa

    present = {c["name"] for c in sa.inspect(engine).get_columns(table.name)}
    missing = [c for c in table.columns if c.name not in present]
    quote = engine.dialect.identifier_preparer.quote
    with engine.begin() as conn:
        for column in missing:
            conn.execute(sa.text(f"ALTER TABLE {quote(table.name)} ADD COLUMN {quote(column.name)} "
                                 f"{column.type.compile(engine.dialect)}"))
            log.info("health history: added column %s to %s", column.name, table.name)


class HealthHistory:
    """Append evaluations; read a table's history. Creates its table on first use."""

    def __init__(self, url: str) -> None:
        import sqlalchemy as sa

        with _LOCK:
            engine = _ENGINES.get(url)
            if engine is None:
                # SQLite is shared with catalog commits: wait for their short locks instead of failing.
                connect_args = {"timeout": 30} if url.startswith("sqlite") else {}
                engine = sa.create_engine(url, connect_args=connect_args)
                self._metadata, self._table = _schema()
                self._metadata.create_all(engine)
                _add_missing_columns(engine, self._table)
                _ENGINES[url] = engine
        self.engine = engine
        self._metadata, self._table = _schema()

    def append(self, health: TableHealth) -> int:
        """Store one evaluation (the table row and one row per partition); returns rows written."""
        base = {"table_name": health.table, "evaluated_at_ms": health.evaluated_at_ms}
        rows = [{**base, "partition": None, "last_commit_ms": health.last_commit_ms,
                 **{k: getattr(health, k) for k in (*_FIGURES, *_TABLE_ONLY)}}]
        # Every row of one insert names the same columns; partitions share the table's snapshot id.
        table_only = {k: None for k in _TABLE_ONLY} | {"snapshot_id": health.snapshot_id}
        rows += [{**base, "partition": p.partition, "last_commit_ms": p.last_commit_ms, **table_only,
                  **{k: getattr(p, k) for k in _FIGURES}} for p in health.partitions]
        with self.engine.begin() as conn:
            conn.execute(self._table.insert(), rows)
        log.info("health history: %d rows for %s at %d", len(rows), health.table, health.evaluated_at_ms)
        return len(rows)

    def read(self, table: str, *, since_ms: int | None = None, until_ms: int | None = None,
             partitions: bool = False) -> list[HealthPoint]:
        """A table's evaluations, oldest first: the whole-table rows, or with partitions=True the
        per-partition rows."""
        import sqlalchemy as sa

        t = self._table
        query = sa.select(t).where(t.c.table_name == table)
        query = query.where(t.c.partition.is_not(None) if partitions else t.c.partition.is_(None))
        if since_ms is not None:
            query = query.where(t.c.evaluated_at_ms >= since_ms)
        if until_ms is not None:
            query = query.where(t.c.evaluated_at_ms < until_ms)
        query = query.order_by(t.c.evaluated_at_ms, t.c.partition)
        with self.engine.connect() as conn:
            rows = conn.execute(query).mappings().all()
        names = {f.name for f in dataclasses.fields(HealthPoint)}
        return [HealthPoint(**{k: v for k, v in row.items() if k in names}, table=row["table_name"]) for row in rows]

    def latest(self) -> dict[str, tuple[int | None, int]]:
        """Each table's last evaluation: (snapshot id, evaluated_at_ms), in one query."""
        import sqlalchemy as sa

        t = self._table
        newest = (sa.select(t.c.table_name, sa.func.max(t.c.evaluated_at_ms).label("at"))
                  .where(t.c.partition.is_(None)).group_by(t.c.table_name).subquery())
        query = sa.select(t.c.table_name, t.c.snapshot_id, t.c.evaluated_at_ms).join(
            newest, sa.and_(t.c.table_name == newest.c.table_name, t.c.evaluated_at_ms == newest.c.at)).where(
            t.c.partition.is_(None))
        with self.engine.connect() as conn:
            return {row[0]: (row[1], int(row[2])) for row in conn.execute(query)}

    def tables(self) -> list[str]:
        import sqlalchemy as sa

        with self.engine.connect() as conn:
            return sorted(r[0] for r in conn.execute(sa.select(self._table.c.table_name).distinct()))

    def prune(self, before_ms: int) -> int:
        """Delete evaluations older than before_ms; returns rows deleted."""
        with self.engine.begin() as conn:
            return int(conn.execute(self._table.delete().where(self._table.c.evaluated_at_ms < before_ms)).rowcount)


def open_history(config: LakeopsConfig) -> HealthHistory:
    from lakeops.catalog import ensure_embedded_storage

    ensure_embedded_storage(config.catalog)
    return HealthHistory(history_url(config))
