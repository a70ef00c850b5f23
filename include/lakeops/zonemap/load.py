"""Load-driven consolidation: besides the hourly and daily runs, a commit whose micro zonemap brings
the table's micro zonemaps past zonemap.consolidate_micro_files (count) or consolidate_micro_mb
(bytes) consolidates them at once into a new master through the current snapshot and removes the
micro files it covers, so read-side planning (which replays the snapshots since the master and
holds the micro entries) stays bounded under a burst of commits.

`consolidation_due` decides (pure, tested against literals); `consolidate_if_due` lists the micro
files, decides and runs.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lakeops.config.policies import ZonemapConfig

if TYPE_CHECKING:
    from pyiceberg.table import Table

    from lakeops.config import TableConfig
    from lakeops.zonemap.consolidate import ConsolidationResult

log = logging.getLogger(__name__)
MIB = 1024 * 1024


def consolidation_due(micro_sizes: list[int], config: ZonemapConfig) -> str | None:
    """Why the micro zonemaps of these sizes (bytes) must be consolidated now; None when they need not."""
    total = sum(micro_sizes)
    if len(micro_sizes) >= config.consolidate_micro_files:
        return f"{len(micro_sizes)} micro zonemaps reach zonemap.consolidate_micro_files ({config.consolidate_micro_files})"
    if total >= config.consolidate_micro_mb * MIB:
        return (f"{total / MIB:.1f} MiB of micro zonemaps reach zonemap.consolidate_micro_mb "
                f"({config.consolidate_micro_mb})")
    return None


def consolidate_if_due(table: Table, spec: TableConfig) -> ConsolidationResult | None:
    """Consolidate the table's micro zonemaps into a new master when their count or bytes are past
    the thresholds; None when they are not."""
    from pyarrow.fs import FileSelector, FileType

    from lakeops.zonemap.consolidate import consolidate_now
    from lakeops.zonemap.store import _filesystem, zonemap_root

    fs, path = _filesystem(f"{zonemap_root(table.location())}/micro")
    infos = fs.get_file_info(FileSelector(path, allow_not_found=True))
    sizes = [i.size or 0 for i in infos if i.type == FileType.File and i.base_name.endswith(".parquet")
             and not i.base_name.startswith((".", "_"))]
    reason = consolidation_due(sizes, spec.zonemap)
    if reason is None:
        return None
    log.info("zonemap of %s: %s; consolidating now", table.name(), reason)
    return consolidate_now(table, spec)
