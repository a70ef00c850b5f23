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
WATERMARK_SEQUENCE_PREFIX = "lakeops.watermark-sequence."
WATERMARK_RECORDS_PREFIX = "lakeops.watermark-records."


def watermark_key(source_table: str) -> str:
    """The summary property of a source's watermark; the source as the model names it (table or namespace.table)."""
    for part in source_table.split("."):
        validate_identifier(part, f"watermark source table {source_table!r}")
    return WATERMARK_PREFIX + source_table


def watermarks_of(summary: dict[str, str] | None) -> dict[str, int]:
    """{source table: snapshot id} recorded in one snapshot summary."""
    return {key[len(WATERMARK_PREFIX):]: int(value) for key, value in (summary or {}).items()
            if key.startswith(WATERMARK_PREFIX)}


def watermark_fact_properties(facts: dict[str, tuple[int, int]]) -> dict[str, str]:
    """The summary properties recording each watermark snapshot's sequence number and row count."""
    properties = {}
    for source, (sequence_number, records) in facts.items():
        watermark_key(source)
        properties[WATERMARK_SEQUENCE_PREFIX + source] = str(sequence_number)
        properties[WATERMARK_RECORDS_PREFIX + source] = str(records)
    return properties


def _watermark_summary(table: Table) -> dict[str, str]:
    """The summary of the newest snapshot of table's main branch that carries watermarks: a snapshot
    written by another job (compaction, expiry) carries none and must not reset them."""
    from pyiceberg.table.snapshots import ancestors_of

    for snapshot in ancestors_of(table.current_snapshot(), table.metadata):
        summary = snapshot.summary.additional_properties if snapshot.summary else {}
        if watermarks_of(summary):
            return summary
    return {}


def current_watermarks(table: Table) -> dict[str, int]:
    """The watermarks the table's next incremental run starts from (see _watermark_summary)."""
    return watermarks_of(_watermark_summary(table))


def current_watermark_facts(table: Table) -> dict[str, tuple[int, int]]:
    """source -> (sequence number, row count) of its current watermark snapshot, where the commit recorded both."""
    summary = _watermark_summary(table)
    facts = {}
    for key, value in summary.items():
        source = key[len(WATERMARK_SEQUENCE_PREFIX):]
        if key.startswith(WATERMARK_SEQUENCE_PREFIX) and WATERMARK_RECORDS_PREFIX + source in summary:
            facts[source] = (int(value), int(summary[WATERMARK_RECORDS_PREFIX + source]))
    return facts
