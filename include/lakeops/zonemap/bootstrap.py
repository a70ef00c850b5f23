"""The first zonemap index of a table that has never had one (written by other engines, or before its
zonemap columns were set): a daily master through the current snapshot, each live file's entry built from
Iceberg's manifest metrics plus the column reads Bloom filters and exact string bounds need, as the table's
first consolidation builds it. Metadata and single columns only, no Spark; progress is logged."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lakeops.config import TableConfig
from lakeops.exceptions import ConfigError
from lakeops.zonemap.consolidate import ConsolidationResult, Reader, reconcile
from lakeops.zonemap.levels import DAILY, HOURLY, newest
from lakeops.zonemap.snapmap import micro_files, read_map
from lakeops.zonemap.store import read_files, zonemap_root

if TYPE_CHECKING:
    from pyiceberg.table import Table

log = logging.getLogger(__name__)

EXISTS = "exists"
"""build_index's status for a table that has an index already (left as it is)."""


def has_index(table: Table) -> bool:
    """Whether any zonemap of the table exists: a published hourly or daily version, or a micro zonemap."""
    root = zonemap_root(table.location())
    return bool(read_map(root, DAILY) or read_map(root, HOURLY) or micro_files(table))


def build_index(table: Table, spec: TableConfig, reader: Reader = read_files) -> ConsolidationResult:
    """Build the index of a table that has none: every live file of the current snapshot gets an entry
    (status `published`). A table that has an index already is left as it is (status `exists`, with its
    newest master when there is one): its consolidations keep it current."""
    if not spec.zonemap.columns:
        raise ConfigError(f"table {spec.name} has no zonemap columns, so it has no zonemap to build; set zonemap.columns "
                          "in its config entry or the table property lakeops.zonemap.columns")
    if has_index(table):
        master = newest(read_map(zonemap_root(table.location()), DAILY))
        log.info("zonemap of %s: the table has an index already; consolidation keeps it current", spec.name)
        if master is None:
            return ConsolidationResult(DAILY, "", EXISTS)
        return ConsolidationResult(DAILY, master.period, EXISTS, master.path, master.snapshot_id, master.entries)
    log.info("zonemap of %s: no index yet; building one from the manifests of the current snapshot", spec.name)
    return reconcile(table, spec, reader)
