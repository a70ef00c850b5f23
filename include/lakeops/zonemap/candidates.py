"""candidate_files(table, predicate, snapshot=None): the live data files that may hold matching rows.

Conservative by construction: a live file is skipped only when its zonemap entry proves that no
row matches; a live file with no entry (written after the last zonemap, or whose zonemap file
is unreadable) is always a candidate, and entries of files no longer live are ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyiceberg.expressions import BooleanExpression

from lakeops.zonemap.index import load_index
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

    @property
    def coverage(self) -> float:
        """Share of live files the index covers (1.0: no drift)."""
        return self.indexed_live_files / self.live_files if self.live_files else 1.0


def candidate_files(table: Table, predicate: BooleanExpression, snapshot: int | None = None) -> Candidates:
    snapshot_id = snapshot if snapshot is not None else (table.current_snapshot().snapshot_id if table.current_snapshot() else None)
    if snapshot_id is None:
        return Candidates([], 0, 0, 0, [])
    live = [f.path for f in live_files(table, snapshot_id)]
    index, unreadable = load_index(table)
    schema = table.schema()
    live_set = set(live)
    chosen = [path for path in live if path not in index or may_match(index[path], predicate, schema)]
    return Candidates(chosen, len(live), sum(p in index for p in live), sum(p not in live_set for p in index), unreadable)
