"""The plain values the ETL planner needs, read from Iceberg metadata with pyiceberg (no Spark),
and what a commit did, read from its snapshot summary."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lakeops.etl.plan import SourceState

if TYPE_CHECKING:
    from pyiceberg.table import Table


ROW_CHANGE_COUNTS = ("added-data-files", "deleted-data-files", "added-delete-files", "removed-delete-files",
                     "added-records", "deleted-records")


def changes_rows(operation: str, summary: dict[str, str]) -> bool:
    """Whether a snapshot may have changed the table's rows: not a compaction's replace, and not a commit that
    added and removed nothing (an UPDATE or DELETE that matched no row still commits one)."""
    return operation != "replace" and any(int(summary.get(count) or 0) for count in ROW_CHANGE_COUNTS)


def source_state(name: str, table: Table | None, watermark: int | None) -> SourceState:
    """The source's current snapshot, its live snapshots and the operations committed after the
    watermark on the current branch by snapshots that changed rows (changes_rows). table None: the source
    does not exist yet."""
    from pyiceberg.table.snapshots import ancestors_of

    current = None if table is None else table.current_snapshot()
    if table is None or current is None:
        return SourceState(name, None)
    operations: list[str] = []
    found = False
    for snapshot in ancestors_of(current, table.metadata):
        if snapshot.snapshot_id == watermark:
            found = True
            break
        if snapshot.summary is None:
            operations.append("unknown")
        elif changes_rows(snapshot.summary.operation.value, snapshot.summary.additional_properties):
            operations.append(str(snapshot.summary.operation.value))
    return SourceState(
        name=name,
        current_snapshot_id=current.snapshot_id,
        live_snapshot_ids=frozenset(s.snapshot_id for s in table.snapshots()),
        operations_after={watermark: tuple(operations)} if found and watermark is not None else {},
    )


MERGE_METRICS = ("inserted", "updated", "deleted")


def keys_written(summary: dict[str, str]) -> int:
    """Downstream keys one ETL commit recomputed, from its snapshot summary: a MERGE's target rows
    inserted, updated and deleted (Spark records them as spark.merge-into.num-target-rows-*); the
    rows an overwrite (full, backfill) wrote otherwise."""
    merged = [summary.get(f"spark.merge-into.num-target-rows-{kind}") for kind in MERGE_METRICS]
    if any(value is not None for value in merged):
        return sum(int(value or 0) for value in merged)
    return int(summary.get("added-records", 0))
