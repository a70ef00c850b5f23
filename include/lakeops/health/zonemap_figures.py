"""How well a table's zonemap serves readers, from the index and the current snapshot's manifests (no data file
is opened): coverage (the share of live data files the index has an entry for) and pruning (the share of
indexed files a point lookup skips, on the indexed column that skips the most).

Pruning is measured without a query log: the lookup values are the indexed files' own lower bounds (values
the column really holds), and a file is read when its [min, max] holds the value. 1,000 files of disjoint
time ranges skip 99.9%; files that all span the whole range skip nothing, however complete the index is.
Bloom filters are not counted, so a Bloom column's equality lookups prune at least this much."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyiceberg.table import Table

    from lakeops.config import TableConfig


@dataclass(frozen=True)
class ZonemapFigures:
    coverage: float
    """Share of live data files with an index entry (1.0 when the table has no data file)."""
    pruning: float
    """Share of indexed files a point lookup on `column` skips."""
    column: str | None
    """The indexed column that prunes the most; None when no column's bounds are known."""
    live_files: int
    indexed_files: int


def pruning_share(ranges: Sequence[tuple[Any, Any]]) -> float:
    """Mean share of the files a point lookup skips, over lookups of each file's lower bound; a file whose
    bounds are unknown (None) is read by every lookup. 0.0 for no file."""
    known = [(low, high) for low, high in ranges if low is not None and high is not None]
    if not known:
        return 0.0
    unknown = len(ranges) - len(known)
    lowers = sorted(low for low, _ in known)
    uppers = sorted(high for _, high in known)
    # files holding q: lower <= q, less those already over (upper < q)
    read = sum(bisect_right(lowers, q) - bisect_left(uppers, q) + unknown for q in lowers)
    return 1.0 - read / (len(lowers) * len(ranges))


def zonemap_figures(table: Table, spec: TableConfig) -> ZonemapFigures | None:
    """The figures of `table`'s current snapshot; None when it has no zonemap columns."""
    from pyiceberg.manifest import DataFileContent, ManifestContent

    from lakeops.health.manifests import live_files
    from lakeops.tables.effective import zonemap_field_ids
    from lakeops.zonemap.index import load_index

    if not spec.zonemap.columns:
        return None
    field_ids = zonemap_field_ids(spec, table)
    snapshot = table.current_snapshot()
    manifests = [m for m in snapshot.manifests(table.io) if m.content == ManifestContent.DATA] if snapshot else []
    live = [f.path for f in live_files(table.io, manifests) if f.content == DataFileContent.DATA]
    index, _unreadable = load_index(table)
    indexed = [index[path] for path in live if path in index]
    best: tuple[float, str | None] = (0.0, None)
    for name, field_id in field_ids.items():
        ranges = [(e.columns[field_id].lower, e.columns[field_id].upper) if field_id in e.columns else (None, None)
                  for e in indexed]
        try:
            share = pruning_share(ranges)
        except TypeError:  # bounds of mixed types (an evolved column): no pruning figure from it
            continue
        if best[1] is None or share > best[0]:
            best = (share, name)
    return ZonemapFigures(len(indexed) / len(live) if live else 1.0, best[0], best[1], len(live), len(indexed))
