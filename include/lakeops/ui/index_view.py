"""The table-health index: one row per maintained table from its latest stored evaluation, never from its
manifests, so the page costs one catalog listing and one query however many tables there are. Pure: the
listing and the stored rows come in, sorted rows go out.

Scores are recomputed at the page's time from the stored inputs (freshness ages between evaluations).
Worst first by default: tables whose last evaluation failed, then by score, then tables not evaluated yet,
then configured tables not created yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakeops.health.score import LABELS, freshness_lag_s, score

if TYPE_CHECKING:
    from lakeops.health.scores import LatestRow

OK, FAILED, NOT_EVALUATED, NOT_CREATED = "ok", "evaluation failed", "not evaluated yet", "not created yet"
_RANK = {FAILED: 0, OK: 1, NOT_EVALUATED: 2, NOT_CREATED: 3}
SORT_KEYS = ("score", "table", "worst", "data_files", "delete_files", "read_amplification", "freshness", "evaluated")


@dataclass(frozen=True)
class IndexRow:
    table: str
    status: str
    score: int | None = None
    worst: str | None = None
    """Label of the part that lost the most points."""
    worst_lost: float | None = None
    worst_figure: str | None = None
    evaluated_at_ms: int | None = None
    data_files: int | None = None
    delete_files: int | None = None
    read_amplification: float | None = None
    freshness_lag_s: float | None = None
    freshness_sla_minutes: int | None = None
    error: str | None = None

    @property
    def freshness_missed(self) -> bool | None:
        if self.freshness_sla_minutes is None or self.status not in (OK, FAILED) or self.score is None:
            return None
        return self.freshness_lag_s is None or self.freshness_lag_s > self.freshness_sla_minutes * 60


def index_row(table: str, exists: bool | None, latest: LatestRow | None, now_ms: int) -> IndexRow:
    """The row of one table: `exists` False for a table the catalog does not list (None: unknown)."""
    if exists is False:
        return IndexRow(table, NOT_CREATED)
    evaluated = latest.evaluated if latest else None
    status = FAILED if latest and latest.status == "failed" else (OK if evaluated else NOT_EVALUATED)
    error = latest.error if latest and latest.status == "failed" else None
    if evaluated is None:
        return IndexRow(table, status, error=error)
    inputs = evaluated.inputs
    result = score(inputs, now_ms)
    worst = result.worst
    return IndexRow(table, status, result.score, worst.label if worst else None, round(worst.lost, 1) if worst else None,
                    worst.figure if worst else None, evaluated.evaluated_at_ms, inputs.data_files, inputs.delete_files,
                    inputs.read_amp_files, freshness_lag_s(inputs, now_ms), inputs.freshness_sla_minutes, error)


def index_rows(tables: list[str], existing: set[str] | None, latest: dict[str, LatestRow], now_ms: int) -> list[IndexRow]:
    """Rows of `tables`; `existing` the tables the catalog lists (None: the listing failed, existence unknown)."""
    return [index_row(t, None if existing is None else t in existing, latest.get(t), now_ms) for t in tables]


def _key(row: IndexRow, key: str) -> tuple:
    value: object = {
        "table": row.table, "worst": row.worst_lost if row.worst_lost is not None else -1.0,
        "data_files": row.data_files, "delete_files": row.delete_files, "read_amplification": row.read_amplification,
        "freshness": row.freshness_lag_s, "evaluated": row.evaluated_at_ms, "score": row.score,
    }[key]
    return (value is None, value if value is not None else 0)


def sort_rows(rows: list[IndexRow], key: str = "score", descending: bool = False) -> list[IndexRow]:
    """Rows sorted by `key` (one of SORT_KEYS); by score (the default), worst first: failed evaluations, then
    ascending score, then tables not evaluated yet, then tables not created yet. Ties by table name."""
    if key not in SORT_KEYS:
        raise ValueError(f"sort key {key!r} is not one of {', '.join(SORT_KEYS)}")
    by_name = sorted(rows, key=lambda r: r.table)
    if key == "score":
        ordered = sorted(by_name, key=lambda r: (_RANK[r.status], r.score if r.score is not None else 101))
        return list(reversed(ordered)) if descending else ordered
    known = [r for r in by_name if _key(r, key)[0] is False]
    unknown = [r for r in by_name if _key(r, key)[0] is True]
    return sorted(known, key=lambda r: _key(r, key)[1], reverse=descending) + unknown


def part_label(name: str | None) -> str:
    return LABELS.get(name or "", name or "")
