"""candidate_files(table, predicate, snapshot=None): the live data files that may hold matching rows.

Conservative by construction: a live file is skipped only when its zonemap entry proves that no
row matches; a live file with no entry (written after the last zonemap, or whose zonemap file
is unreadable) is always a candidate, and entries of files no longer live are ignored.

Routing (lakeops.zonemap.index): recent files are decided from the hot micro/hourly entries held
in memory; the rest from the daily master on disk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyiceberg.expressions import BooleanExpression

from lakeops.zonemap.hot import set_hot_memory
from lakeops.zonemap.index import cold_lookup, hot_index, index_files
from lakeops.zonemap.live import live_files
from lakeops.zonemap.prune import may_match

if TYPE_CHECKING:
    from pyiceberg.table import Table


@dataclass(frozen=True)
class Candidates:
    files: list[str]
    live_files: int
    indexed_live_files: int
    stale_entries: int
    unreadable_zonemaps: list[str]
    hot_files: int = 0
    """Live files decided from the in-memory (micro/hourly) entries; the other indexed ones came from the master on disk."""

    @property
    def coverage(self) -> float:
        """Share of live files the index covers (1.0: no drift)."""
        return self.indexed_live_files / self.live_files if self.live_files else 1.0


def candidate_files(table: Table, predicate: BooleanExpression, snapshot: int | None = None, *,
                    hot_memory_mb: int | None = None) -> Candidates:
    if hot_memory_mb is not None:
        set_hot_memory(hot_memory_mb)
    current = table.current_snapshot()
    snapshot_id = snapshot if snapshot is not None else (current.snapshot_id if current else None)
    if snapshot_id is None:
        return Candidates([], 0, 0, 0, [])
    live = [f.path for f in live_files(table, snapshot_id)]
    live_set = set(live)
    files = index_files(table.location())
    hot, unreadable = hot_index(files)
    schema = table.schema()
    cold = cold_lookup(files.master, {p for p in live if p not in hot}, live_set, predicate, schema)
    chosen = [p for p in live
              if (may_match(hot[p], predicate, schema) if p in hot else (p not in cold.indexed or p in cold.keep))]
    hot_live = sum(p in hot for p in live)
    stale = sum(p not in live_set for p in hot) + cold.stale
    return Candidates(chosen, len(live), hot_live + len(cold.indexed), stale, unreadable + cold.unreadable, hot_live)
