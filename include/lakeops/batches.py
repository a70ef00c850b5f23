"""Where a batch id stands on a table, read from Iceberg metadata with pyiceberg (no Spark job).

A batch is staged as a snapshot carrying `wap.id`; publishing makes it (or a cherry-picked copy
carrying `published-wap-id`) an ancestor of the current snapshot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyiceberg.table.snapshots import ancestors_of

if TYPE_CHECKING:
    from pyiceberg.table import Table


def published_snapshot(table: Table, batch_id: str) -> int | None:
    """The snapshot that published batch_id on the current branch, if any."""
    for snapshot in ancestors_of(table.current_snapshot(), table.metadata):
        summary = snapshot.summary
        if summary is not None and batch_id in (summary.get("wap.id"), summary.get("published-wap-id")):
            return snapshot.snapshot_id
    return None


def staged_snapshot(table: Table, batch_id: str) -> int | None:
    """The newest snapshot staged under batch_id, published or not."""
    staged = [s for s in table.snapshots() if s.summary is not None and s.summary.get("wap.id") == batch_id]
    return max(staged, key=lambda s: s.timestamp_ms).snapshot_id if staged else None
