"""Which commits changed a table's rows: freshness counts those only. Compaction rewrites (`replace`),
commits that only drop delete files, and empty commits (Flink commits an empty snapshot every few
checkpoints) leave the rows as they were, so they must not make a stalled table look fresh."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyiceberg.table import Table

ROW_CHANGES = ("added-data-files", "deleted-data-files", "added-delete-files", "added-records", "deleted-records",
               "added-position-deletes", "added-equality-deletes", "added-dvs")
"""Snapshot summary counts that mean rows were added, removed or marked deleted."""


def _count(summary: Mapping[str, str], key: str) -> int:
    try:
        return int(summary.get(key) or 0)
    except ValueError:
        return 0


def changes_rows(operation: str | None, summary: Mapping[str, str]) -> bool:
    """Whether a commit with this operation and summary changed the table's rows."""
    if operation == "replace":
        return False
    return any(_count(summary, key) > 0 for key in ROW_CHANGES)


def last_row_change_ms(snapshots_newest_first: Iterable[tuple[int, str | None, Mapping[str, str]]]) -> int | None:
    """Commit time of the newest (timestamp_ms, operation, summary) that changed rows; None when none did."""
    for timestamp_ms, operation, summary in snapshots_newest_first:
        if changes_rows(operation, summary):
            return timestamp_ms
    return None


def last_data_commit_ms(table: Table) -> int | None:
    """When the current branch last changed the table's rows, from its snapshots' summaries (metadata only)."""
    from pyiceberg.table.snapshots import ancestors_of

    current = table.current_snapshot()
    if current is None:
        return None

    def described() -> Iterable[tuple[int, str | None, Mapping[str, str]]]:
        for snapshot in ancestors_of(current, table.metadata):
            summary = snapshot.summary
            operation = str(summary.operation.value) if summary is not None else None
            yield snapshot.timestamp_ms, operation, (summary.additional_properties if summary is not None else {})

    return last_row_change_ms(described())
