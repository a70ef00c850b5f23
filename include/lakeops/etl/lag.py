"""How far a model is behind one of its sources, from the source's snapshot log alone: the commits that changed rows
since the model's watermark, and when the oldest of them landed (how long a change has waited to be read).
source_lag is pure, over the snapshots as plain values; snapshot_facts reads them from a pyiceberg table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakeops.etl.state import changes_rows

if TYPE_CHECKING:
    from pyiceberg.table import Table


@dataclass(frozen=True)
class SnapshotFact:
    snapshot_id: int
    parent_id: int | None
    committed_ms: int
    changes_rows: bool
    """lakeops.etl.state.changes_rows: not a compaction, and not a commit that added and removed nothing."""


@dataclass(frozen=True)
class SourceLag:
    source: str
    watermark: int | None
    current: int | None
    unread_commits: int | None
    """Commits that changed rows after the watermark, on the current snapshot's lineage; None when that cannot be
    told: no watermark yet, or the watermark is no ancestor of the current snapshot (expired, or the table replaced)."""
    oldest_unread_ms: int | None = None
    """When the oldest of those commits landed (epoch ms)."""

    def as_dict(self) -> dict:
        return {"source": self.source, "watermark_snapshot_id": self.watermark, "current_snapshot_id": self.current,
                "unread_commits": self.unread_commits, "oldest_unread_ms": self.oldest_unread_ms}


def source_lag(source: str, snapshots: Sequence[SnapshotFact], current: int | None, watermark: int | None) -> SourceLag:
    """Walk back from the current snapshot to the watermark, counting the commits that changed rows."""
    if watermark is None:
        return SourceLag(source, None, current, None)
    by_id = {s.snapshot_id: s for s in snapshots}
    unread, oldest, at = 0, None, current
    while at != watermark:
        snapshot = by_id.get(at) if at is not None else None
        if snapshot is None:  # the lineage ends (or was expired) before the watermark
            return SourceLag(source, watermark, current, None)
        if snapshot.changes_rows:
            unread, oldest = unread + 1, snapshot.committed_ms
        at = snapshot.parent_id
    return SourceLag(source, watermark, current, unread, oldest)


def snapshot_facts(table: Table) -> list[SnapshotFact]:
    """Every snapshot of the table's metadata, as SnapshotFact."""
    return [SnapshotFact(s.snapshot_id, s.parent_snapshot_id, s.timestamp_ms,
                         s.summary is None or changes_rows(s.summary.operation.value, s.summary.additional_properties))
            for s in table.snapshots()]


def most_behind(lags: Sequence[SourceLag]) -> SourceLag | None:
    """The source whose oldest unread commit is the oldest, if any source has one."""
    behind = [lag for lag in lags if lag.oldest_unread_ms is not None]
    return min(behind, key=lambda lag: lag.oldest_unread_ms or 0) if behind else None


def lag_breached(oldest_unread_ms: int | None, sla_minutes: int, now_ms: int) -> bool:
    """Whether the oldest unread commit (None: nothing unread) has waited longer than the SLA. A model whose lag cannot
    be told (no watermark yet, an expired one) has none either: the table's freshness SLA covers a model that never
    committed, and the next run recomputes after an expired watermark."""
    return oldest_unread_ms is not None and now_ms - oldest_unread_ms > sla_minutes * 60_000
