"""What the expiry plan needs, read from Iceberg metadata with pyiceberg (no Spark job)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lakeops.config import LakeopsConfig
from lakeops.expiry.plan import RefInfo, SnapshotInfo
from lakeops.watermark import current_watermarks

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table

log = logging.getLogger(__name__)


def snapshots_of(table: Table) -> list[SnapshotInfo]:
    return [SnapshotInfo(s.snapshot_id, s.parent_snapshot_id, s.timestamp_ms) for s in table.snapshots()]


def refs_of(table: Table) -> list[RefInfo]:
    return [RefInfo(name, str(ref.snapshot_ref_type.value), ref.snapshot_id) for name, ref in table.metadata.refs.items()]


def downstream_watermarks(catalog: Catalog, config: LakeopsConfig, source: str) -> dict[str, int]:
    """{downstream table: snapshot of `source` it has processed up to}, over every table of the config
    that exists in the catalog (a consumer registers its downstream table in the config's tables)."""
    found = {}
    target = config.identifier(source)
    for name in sorted(config.tables):
        if name == target or not catalog.table_exists(name):
            continue
        for marked, snapshot_id in current_watermarks(catalog.load_table(name)).items():
            if config.identifier(marked) == target:  # a watermark names its source as the ETL does: ns.table or table
                found[name] = snapshot_id
    log.info("watermarks on %s: %d downstream tables of %d configured (%s)", source, len(found), len(config.tables), found)
    return found
