"""Incremental-consumer watermarks: the last source snapshot a downstream table has processed.

A downstream table records, in the summary of the snapshot that wrote its data, one property per
source: ``lakeops.watermark.<source table> = <source snapshot id>``. Writing it in the same commit
as the data means a retry or a crash can neither skip nor double-count. Snapshot expiry reads the
same properties to keep every snapshot a consumer still starts from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lakeops.config import validate_identifier

if TYPE_CHECKING:
    from pyiceberg.table import Table

WATERMARK_PREFIX = "lakeops.watermark."


def watermark_key(source_table: str) -> str:
    """The summary property of a source's watermark; the source as the model names it (table or namespace.table)."""
    for part in source_table.split("."):
        validate_identifier(part, f"watermark source table {source_table!r}")
    return WATERMARK_PREFIX + source_table


def watermarks_of(summary: dict[str, str] | None) -> dict[str, int]:
    """{source table: snapshot id} recorded in one snapshot summary."""
    return {key[len(WATERMARK_PREFIX):]: int(value) for key, value in (summary or {}).items()
            if key.startswith(WATERMARK_PREFIX)}


def current_watermarks(table: Table) -> dict[str, int]:
    """The watermarks of the newest snapshot of table's main branch that carries any: a snapshot
    written by another job (compaction, expiry) carries none and must not reset them."""
    from pyiceberg.table.snapshots import ancestors_of

    for snapshot in ancestors_of(table.current_snapshot(), table.metadata):
        found = watermarks_of(snapshot.summary.additional_properties if snapshot.summary else None)
        if found:
            return found
    return {}
