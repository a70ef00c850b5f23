"""Health scores, stored beside the health history (same database): every scored evaluation as one row of
`lakeops_health_scores` (the table page plots them), and each table's latest state as one row of
`lakeops_health_latest`, so the table-health index reads one row per table however long the history is.

A row keeps the score's inputs (ScoreInputs, as JSON) as well as the score: freshness ages between
evaluations, so a reader recomputes the score at its own time from the inputs (lakeops.health.score).
The latest row also says when a table could not be evaluated (`failed`, with the error) or does not exist
yet (`missing`), keeping its last good score.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lakeops.health.score import HealthScore, ScoreInputs

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from lakeops.config import LakeopsConfig

log = logging.getLogger(__name__)
SCORES_TABLE = "lakeops_health_scores"
LATEST_TABLE = "lakeops_health_latest"
OK, FAILED, MISSING = "ok", "failed", "missing"
_CREATED: set[str] = set()
_LOCK = threading.Lock()


@dataclass(frozen=True)
class ScoreRow:
    """One scored evaluation."""

    table: str
    evaluated_at_ms: int
    snapshot_id: int | None
    score: int
    worst: str | None
    inputs: ScoreInputs


@dataclass(frozen=True)
class LatestRow:
    """A table's latest state: its last good evaluation (None before the first) and its last status."""

    table: str
    status: str
    status_at_ms: int
    error: str | None
    evaluated: ScoreRow | None


def _schema() -> tuple[Any, Any, Any]:
    import sqlalchemy as sa

    metadata = sa.MetaData()
    scores = sa.Table(
        SCORES_TABLE, metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_name", sa.String(255), nullable=False),
        sa.Column("evaluated_at_ms", sa.BigInteger, nullable=False),
        sa.Column("snapshot_id", sa.BigInteger, nullable=True),
        sa.Column("score", sa.Integer, nullable=False),
        sa.Column("worst", sa.String(64), nullable=True),
        sa.Column("inputs", sa.Text, nullable=False))
    sa.Index(f"{SCORES_TABLE}_by_table_time", scores.c.table_name, scores.c.evaluated_at_ms)
    latest = sa.Table(
        LATEST_TABLE, metadata,
        sa.Column("table_name", sa.String(255), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("status_at_ms", sa.BigInteger, nullable=False),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("evaluated_at_ms", sa.BigInteger, nullable=True),
        sa.Column("snapshot_id", sa.BigInteger, nullable=True),
        sa.Column("score", sa.Integer, nullable=True),
        sa.Column("worst", sa.String(64), nullable=True),
        sa.Column("inputs", sa.Text, nullable=True))
    return metadata, scores, latest


def _row(table: str, mapping: Any) -> ScoreRow | None:
    if mapping["inputs"] is None or mapping["evaluated_at_ms"] is None:
        return None
    return ScoreRow(table, int(mapping["evaluated_at_ms"]), mapping["snapshot_id"], int(mapping["score"]),
                    mapping["worst"], ScoreInputs.from_dict(json.loads(mapping["inputs"])))


class ScoreStore:
    """Write scored evaluations and statuses; read a table's scores and every table's latest state."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._metadata, self.scores, self.latest_table = _schema()
        key = str(engine.url)
        with _LOCK:
            if key not in _CREATED:
                self._metadata.create_all(engine)
                _CREATED.add(key)

    def _upsert(self, conn: Any, table: str, values: dict[str, Any]) -> None:
        t = self.latest_table
        if not conn.execute(t.update().where(t.c.table_name == table).values(**values)).rowcount:
            conn.execute(t.insert().values(table_name=table, **values))

    def record(self, table: str, result: HealthScore, inputs: ScoreInputs, snapshot_id: int | None) -> None:
        """Store one scored evaluation and make it the table's latest."""
        worst = result.worst
        values = {"evaluated_at_ms": result.evaluated_at_ms, "snapshot_id": snapshot_id, "score": result.score,
                  "worst": worst.name if worst else None, "inputs": json.dumps(inputs.as_dict())}
        with self.engine.begin() as conn:
            conn.execute(self.scores.insert().values(table_name=table, **values))
            self._upsert(conn, table, {**values, "status": OK, "status_at_ms": result.evaluated_at_ms, "error": None})

    def record_status(self, table: str, status: str, at_ms: int, error: str | None = None) -> None:
        """A table that could not be evaluated (FAILED) or does not exist (MISSING); its last score stays."""
        if status not in (FAILED, MISSING):
            raise ValueError(f"status {status!r}: use {FAILED!r} or {MISSING!r} (a scored evaluation is recorded by record())")
        with self.engine.begin() as conn:
            self._upsert(conn, table, {"status": status, "status_at_ms": at_ms, "error": error})

    def latest(self) -> dict[str, LatestRow]:
        """Every table's latest state, in one query."""
        with self.engine.connect() as conn:
            rows = conn.execute(self.latest_table.select()).mappings().all()
        return {r["table_name"]: LatestRow(r["table_name"], r["status"], int(r["status_at_ms"]), r["error"],
                                           _row(r["table_name"], r)) for r in rows}

    def latest_of(self, table: str) -> LatestRow | None:
        t = self.latest_table
        with self.engine.connect() as conn:
            r = conn.execute(t.select().where(t.c.table_name == table)).mappings().first()
        return None if r is None else LatestRow(table, r["status"], int(r["status_at_ms"]), r["error"], _row(table, r))

    def read(self, table: str, *, since_ms: int | None = None, until_ms: int | None = None) -> list[ScoreRow]:
        """A table's scored evaluations, oldest first."""
        t = self.scores
        query = t.select().where(t.c.table_name == table)
        if since_ms is not None:
            query = query.where(t.c.evaluated_at_ms >= since_ms)
        if until_ms is not None:
            query = query.where(t.c.evaluated_at_ms < until_ms)
        with self.engine.connect() as conn:
            rows = conn.execute(query.order_by(t.c.evaluated_at_ms)).mappings().all()
        return [row for row in (_row(table, r) for r in rows) if row is not None]

    def prune(self, before_ms: int) -> int:
        """Delete scored evaluations older than before_ms (the latest rows stay); returns rows deleted."""
        with self.engine.begin() as conn:
            return int(conn.execute(self.scores.delete().where(self.scores.c.evaluated_at_ms < before_ms)).rowcount)


def open_scores(config: LakeopsConfig) -> ScoreStore:
    """The score store in the health history's database (health.history_url, else the embedded catalog's)."""
    from lakeops.health.history import open_history

    return ScoreStore(open_history(config).engine)
