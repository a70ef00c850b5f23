"""Clean the staging area: after a batch's commit, and of batches older than the table's
ingest.staging_max_age_hours (left by dead writers, or by a committer killed before its clean-up).

Only staging is deleted: a file a commit of the batch added is table data and is always kept.
A batch's staging is judged by its newest file (markers, manifests, the committer's claim, data);
the committer refreshes its claim before it reads the manifests, so the batch it is about to
commit never looks old to a concurrent clean-up."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lakeops.batches import published_snapshot
from lakeops.staging import store
from lakeops.staging.plan import batch_id_of, removable, staged_data_root, staging_dir, staging_root, stale_batches
from lakeops.zonemap.build import added_data_files

if TYPE_CHECKING:
    from pyiceberg.table import Table

log = logging.getLogger(__name__)


def committed_files(table: Table, batch_id: str) -> set[str]:
    """Paths (as listings name them) of the data files the commit of batch_id added to table."""
    snapshot = published_snapshot(table, batch_id)
    if snapshot is None:
        return set()
    return {store.fs_path(f.file_path) for f in added_data_files(table, snapshot)}


def clean_batch(tables: list[Table], key: str, batch_id: str) -> int:
    """Delete the batch's staging: every staged file no commit of batch_id added, then its manifests
    and markers. tables[0] holds the manifests. Returns the files deleted."""
    deleted = 0
    for table in tables:
        root = staged_data_root(table.location(), key)
        staged = store.list_tree(root)
        if staged:
            deleted += store.delete_files(root, removable(staged, committed_files(table, batch_id)))
    folder = staging_dir(tables[0].location(), key)
    deleted += len(store.list_tree(folder))
    store.delete_tree(folder)
    return deleted


def newest_ms(tables: list[Table], key: str) -> int:
    times = list(store.list_tree(staging_dir(tables[0].location(), key)).values())
    for table in tables:
        times += store.list_tree(staged_data_root(table.location(), key)).values()
    return max(times, default=0)


def clean_stale(tables: list[Table], table_name: str, max_age_hours: float, now_ms: int, keep: str) -> list[str]:
    """Clean every batch of the table whose staging is older than max_age_hours, except `keep`
    (the batch being committed). Returns the keys cleaned."""
    keys = store.list_dirs(staging_root(tables[0].location()))
    candidates = [k for k in keys if k != keep]
    if not candidates:
        return []
    stale = stale_batches({k: newest_ms(tables, k) for k in candidates}, now_ms, max_age_hours, keep)
    for key in stale:
        batch_id = batch_id_of(table_name, key)
        # Re-read the age right before deleting: a committer that claimed the batch since is left alone.
        if stale_batches({key: newest_ms(tables, key)}, now_ms, max_age_hours, keep) != [key]:
            continue
        deleted = clean_batch(tables, key, batch_id)
        log.info("staging of batch %s was older than %g hours (%s): deleted %d files", batch_id, max_age_hours,
                 "committed" if published_snapshot(tables[0], batch_id) else "never committed", deleted)
    return stale
