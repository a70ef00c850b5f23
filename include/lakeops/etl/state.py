"""The plain values the ETL planner needs, read from Iceberg metadata with pyiceberg (no Spark),
and what a commit did, read from its snapshot summary."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from lakeops.etl.changed_dates import (
    DATA,
    EQUALITY_DELETES,
    POSITION_DELETES,
    FileFacts,
    WatermarkFacts,
    changed_dates,
)
from lakeops.etl.plan import SourceState
from lakeops.etl.utc import from_micros

if TYPE_CHECKING:
    from pyiceberg.manifest import ManifestEntry
    from pyiceberg.table import Table
    from pyiceberg.types import IcebergType, NestedField


ROW_CHANGE_COUNTS = ("added-data-files", "deleted-data-files", "added-delete-files", "removed-delete-files",
                     "added-records", "deleted-records")


def changes_rows(operation: str, summary: dict[str, str]) -> bool:
    """Whether a snapshot may have changed the table's rows: not a compaction's replace, and not a commit that
    added and removed nothing (an UPDATE or DELETE that matched no row still commits one)."""
    return operation != "replace" and any(int(summary.get(count) or 0) for count in ROW_CHANGE_COUNTS)


def source_state(name: str, table: Table | None, watermark: int | None) -> SourceState:
    """The source's current snapshot (with its sequence number, row count and bytes), its live snapshots, the
    operations committed after the watermark on the current branch by snapshots that changed rows
    (changes_rows) and the bytes the appends among them added. table None: the source does not exist yet."""
    from pyiceberg.table.snapshots import ancestors_of

    current = None if table is None else table.current_snapshot()
    if table is None or current is None:
        return SourceState(name, None)
    operations: list[str] = []
    appended: int | None = 0
    found = False
    for snapshot in ancestors_of(current, table.metadata):
        if snapshot.snapshot_id == watermark:
            found = True
            break
        if snapshot.summary is None:
            operations.append("unknown")
            appended = None
        elif changes_rows(snapshot.summary.operation.value, snapshot.summary.additional_properties):
            operations.append(str(snapshot.summary.operation.value))
            if snapshot.summary.operation.value == "append":
                size = snapshot.summary.get("added-files-size")
                appended = None if appended is None or size is None else appended + int(size)
    records = current.summary.get("total-records") if current.summary is not None else None
    total_bytes = current.summary.get("total-files-size") if current.summary is not None else None
    return SourceState(
        name=name,
        current_snapshot_id=current.snapshot_id,
        live_snapshot_ids=frozenset(s.snapshot_id for s in table.snapshots()),
        operations_after={watermark: tuple(operations)} if found and watermark is not None else {},
        current_sequence_number=current.sequence_number or None,
        current_total_records=int(records) if records is not None else None,
        appended_bytes=appended if found else None,
        current_total_bytes=int(total_bytes) if total_bytes is not None else None,
    )


def _bound(field_type: IcebergType, raw: bytes | None) -> datetime | None:
    """A time column's bound as a naive UTC datetime (a date column's as its midnight)."""
    from pyiceberg.conversions import from_bytes
    from pyiceberg.types import DateType, PrimitiveType

    if raw is None or not isinstance(field_type, PrimitiveType):
        return None
    value = int(from_bytes(field_type, raw))  # days (date) or microseconds (timestamp) since the epoch
    if isinstance(field_type, DateType):
        return datetime.combine(date(1970, 1, 1) + timedelta(days=value), datetime.min.time())
    return from_micros(value)


def _facts(entry: ManifestEntry, field: NestedField | None) -> FileFacts:
    """One manifest entry (a data or delete file) as changed_dates reads it, a data file with its bounds of the
    time column (field)."""
    from pyiceberg.manifest import DataFileContent

    from lakeops.health.manifests import live_file

    live, f = live_file(entry), entry.data_file
    content = {DataFileContent.DATA: DATA, DataFileContent.POSITION_DELETES: POSITION_DELETES,
               DataFileContent.EQUALITY_DELETES: EQUALITY_DELETES}[live.content]
    bounds = None
    if field is not None and content == DATA:
        low = _bound(field.field_type, (f.lower_bounds or {}).get(field.field_id))
        high = _bound(field.field_type, (f.upper_bounds or {}).get(field.field_id))
        bounds = (low, high) if low is not None and high is not None else None
    referenced = None
    if live.referenced_data_file is not None:
        referenced = (live.referenced_data_file, live.referenced_data_file)
    elif content == POSITION_DELETES and live.path_lower is not None and live.path_upper is not None:
        referenced = (live.path_lower, live.path_upper)
    return FileFacts(live.path, content, live.sequence_number, live.records,
                     (live.spec_id, tuple(live.partition[i] for i in range(len(live.partition)))), bounds, referenced,
                     entry.file_sequence_number)


def _time_field(table: Table, time_column: str | None) -> NestedField | None:
    return table.schema().find_field(time_column) if time_column else None


def file_facts(table: Table, time_column: str | None) -> list[FileFacts]:
    """Every live data and delete file of the table's current snapshot, read from its manifests (metadata only)
    through the health check's reader, which keeps a deletion vector's referenced data file."""
    from lakeops.health.manifests import live_entries

    snapshot = table.current_snapshot()
    if snapshot is None:
        return []
    field = _time_field(table, time_column)
    return [_facts(entry, field) for manifest in snapshot.manifests(table.io) for entry in live_entries(table.io, manifest)]


def removed_since(table: Table, watermark: int, time_column: str | None) -> tuple[FileFacts, ...] | None:
    """The data and delete files the current branch's snapshots committed after the watermark snapshot removed,
    from the manifests each of them wrote; None when one of them was expired too (the branch's oldest kept
    snapshot does not descend from the watermark)."""
    from lakeops.health.manifests import manifest_entries

    chain = []
    snapshot = table.current_snapshot()
    while snapshot is not None and snapshot.snapshot_id != watermark:
        chain.append(snapshot)
        parent = snapshot.parent_snapshot_id
        if parent == watermark:
            break
        snapshot = table.snapshot_by_id(parent) if parent is not None else None
        if snapshot is None:
            return None  # an ancestor committed after the watermark was expired too
    field = _time_field(table, time_column)
    return tuple(_facts(entry, field) for s in chain for manifest in s.manifests(table.io)
                 if manifest.added_snapshot_id == s.snapshot_id
                 for entry in manifest_entries(table.io, manifest, deleted=True))


def source_changed_dates(state: SourceState, table: Table | None, time_column: str | None,
                         mark: WatermarkFacts | None, watermark: int | None = None) -> tuple[date, ...] | str:
    """The dates the source's rows changed on since the watermark (lakeops.etl.changed_dates), from its live files,
    the files the snapshots since removed when all are kept, and the row count source_state read."""
    if table is None or state.current_snapshot_id is None:
        return f"source {state.name} has no snapshot"
    try:
        files = file_facts(table, time_column) if mark is not None else []
        removed = removed_since(table, watermark, time_column) if mark is not None and watermark is not None else None
    except Exception as e:  # noqa: BLE001 - a manifest pyiceberg cannot read: a full recompute is always right
        return f"the manifests of source {state.name} could not be read ({type(e).__name__}: {e})"
    return changed_dates(state.name, time_column, files, mark, state.current_total_records, removed)


MERGE_METRICS = ("inserted", "updated", "deleted")


RECOMPUTED_ROWS = "lakeops.etl-recomputed-rows"
"""Snapshot summary key of an incremental run's commit: the rows its recompute wrote for the affected values."""


def keys_written(summary: dict[str, str]) -> int:
    """Downstream keys one ETL commit recomputed, from its snapshot summary: the rows an incremental run's recompute
    wrote (RECOMPUTED_ROWS); a MERGE's target rows inserted, updated and deleted (Spark records them as
    spark.merge-into.num-target-rows-*: incremental runs before RECOMPUTED_ROWS, and backfills of tables not partitioned
    by day); the rows an overwrite (full, backfill) wrote otherwise."""
    if RECOMPUTED_ROWS in summary:
        return int(summary[RECOMPUTED_ROWS])
    merged = [summary.get(f"spark.merge-into.num-target-rows-{kind}") for kind in MERGE_METRICS]
    if any(value is not None for value in merged):
        return sum(int(value or 0) for value in merged)
    return int(summary.get("added-records", 0))
