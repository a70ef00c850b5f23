"""Write the micro zonemap of one committed snapshot. Called after the commit, never inside it:
a crash before it costs pruning for those files until consolidation covers them, never rows. When
the micro zonemaps pile up past their thresholds, they are consolidated right after
(lakeops.zonemap.load)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lakeops.config import TableConfig
from lakeops.zonemap.build import entries_for_snapshot
from lakeops.zonemap.store import publish, to_arrow, types_for, zonemap_root

if TYPE_CHECKING:
    from pyiceberg.table import Table

log = logging.getLogger(__name__)


def micro_zonemap_uri(table: Table, snapshot_id: int) -> str:
    return f"{zonemap_root(table.location())}/micro/{snapshot_id}.parquet"


def write_micro_zonemap(table: Table, spec: TableConfig, snapshot_id: int) -> tuple[str, int]:
    """(uri, entries) of the micro zonemap for the files snapshot_id added."""
    entries = entries_for_snapshot(table, snapshot_id, spec.zonemap.columns, spec.zonemap.bloom_columns,
                                   spec.zonemap.bloom_fpp, spec.zonemap.bloom_hour_column)
    uri = publish(micro_zonemap_uri(table, snapshot_id), to_arrow(entries, types_for(table.schema())))
    log.info("zonemap: wrote %d micro entries for snapshot %s to %s", len(entries), snapshot_id, uri)
    from lakeops.zonemap.load import consolidate_if_due

    consolidate_if_due(table, spec)
    return uri, len(entries)
