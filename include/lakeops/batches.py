"""Where a batch id stands on a table, read from Iceberg metadata with pyiceberg (no Spark job).

A direct batch is staged as a snapshot carrying `wap.id`; publishing makes it (or a cherry-picked
copy carrying `published-wap-id`) an ancestor of the current snapshot. A staged-writer batch is
committed by one append carrying `lakeops.batch-id` (lakeops.staging.commit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyiceberg.table.snapshots import ancestors_of

if TYPE_CHECKING:
    from datetime import datetime

    from pyiceberg.table import Table

BATCH_ID_PROPERTY = "lakeops.batch-id"
ROWS_PROPERTY = "lakeops.rows"


def published_snapshot(table: Table, batch_id: str) -> int | None:
    """The snapshot that published batch_id on the current branch, if any."""
    for snapshot in ancestors_of(table.current_snapshot(), table.metadata):
        summary = snapshot.summary
        if summary is not None and batch_id in (summary.get("wap.id"), summary.get("published-wap-id"),
                                                summary.get(BATCH_ID_PROPERTY)):
            return snapshot.snapshot_id
    return None


def staged_snapshot(table: Table, batch_id: str) -> int | None:
    """The newest snapshot staged under batch_id, published or not."""
    staged = [s for s in table.snapshots() if s.summary is not None and s.summary.get("wap.id") == batch_id]
    return max(staged, key=lambda s: s.timestamp_ms).snapshot_id if staged else None


@dataclass(frozen=True)
class LaterBatch:
    """A batch already on the table whose interval ends after a new batch's start."""

    batch_id: str
    snapshot_id: int
    parent_id: int | None
    """The snapshot before it: where a table would be rolled back to apply older changes in order."""


def later_batch(table: Table, table_name: str, start: datetime) -> LaterBatch | None:
    """The oldest published interval batch of table_name, among the current snapshot's ancestors,
    whose interval ends after `start` (see lakeops.ingest.plan.first_batch_not_before)."""
    from lakeops.ingest.plan import first_batch_not_before

    tagged = [(s, batch) for s in ancestors_of(table.current_snapshot(), table.metadata)
              if s.summary is not None and (batch := s.summary.get(BATCH_ID_PROPERTY))]
    index = first_batch_not_before([value for _, value in tagged], table_name, start)
    if index is None:
        return None
    snapshot, value = tagged[index]
    return LaterBatch(value, snapshot.snapshot_id, snapshot.parent_snapshot_id)


def batch_committed(table: Table, quarantine: Table, batch_id: str) -> bool:
    """Whether an ingest batch is done: its commit to the table is there, or it had no good rows
    and its quarantine commit is there (quarantine commits first, so alone it is not enough)."""
    if published_snapshot(table, batch_id) is not None:
        return True
    snapshot_id = published_snapshot(quarantine, batch_id)
    snapshot = quarantine.snapshot_by_id(snapshot_id) if snapshot_id is not None else None
    return snapshot is not None and snapshot.summary is not None and snapshot.summary.get(ROWS_PROPERTY) == "0"
