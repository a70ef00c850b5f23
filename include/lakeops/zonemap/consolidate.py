"""Consolidation micro -> hourly -> daily master, each run reconciling the index with the live
files of the current snapshot, and reconcile(table, spec) for callers that just changed the files
(compaction, overwrite).

Reconcile, within a level's scope (lakeops.zonemap.levels): entries of files no longer live
(compacted, expired, overwritten) are dropped; live files without an entry (a micro zonemap never
written or unreadable, files a compaction added) get one from Iceberg's manifest metrics, with
Bloom filters and exact string bounds from a column-only read. The drift figure (coverage of
live files before reconcile, stale entries dropped) is logged and returned.

Reading the source zonemap files is pluggable: pyarrow here, Spark in the scheduled jobs
(lakeops.spark.zonemap_levels); both report unreadable files, which are ignored and rebuilt.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

from lakeops.config import TableConfig
from lakeops.zonemap.build import entries_for_files
from lakeops.zonemap.entry import ZonemapEntry
from lakeops.zonemap.groups import write_master
from lakeops.zonemap.levels import DAILY, HOURLY, Scope, Version, day_scope, hour_scope, newest, plan_sources, removable_micro
from lakeops.zonemap.live import LiveFile, live_files
from lakeops.zonemap.snapmap import micro_files, now_ms, read_map, record_version, version_uri
from lakeops.zonemap.store import _filesystem, read_files, to_arrow, types_for, zonemap_root

if TYPE_CHECKING:
    from pyiceberg.table import Table

log = logging.getLogger(__name__)

MASTER_ROW_GROUP = 2048
Reader = Callable[[list[str]], tuple[list[ZonemapEntry], list[str]]]


@dataclass(frozen=True)
class Drift:
    live_files: int
    """Live files in the level's scope."""
    covered: int
    """Of them, those the index held an entry for before this reconcile."""
    stale_entries: int
    """Entries dropped because their file is no longer live."""
    added: int
    unreadable: list[str] = field(default_factory=list)

    @property
    def coverage(self) -> float:
        return self.covered / self.live_files if self.live_files else 1.0


@dataclass(frozen=True)
class ConsolidationResult:
    level: str
    period: str
    status: str
    """published | empty_table | exists (lakeops.zonemap.bootstrap: an index was there already)"""
    path: str | None = None
    snapshot_id: int | None = None
    entries: int = 0
    drift: Drift | None = None
    removed_micro: int = 0

    def as_dict(self) -> dict:
        out = asdict(self)
        if self.drift:
            out["drift"]["coverage"] = round(self.drift.coverage, 4)
        return out


def reconcile_entries(existing: list[ZonemapEntry], live: list[LiveFile],
                      scope: Scope) -> tuple[list[ZonemapEntry], list[LiveFile], int]:
    """(entries kept, live files lacking one, stale entries): pure, no I/O."""
    by_path = {e.file_path: e for e in existing}
    live_paths = {f.path for f in live}
    in_scope = [f for f in live if scope.holds(f.committed_ms)]
    kept = [by_path[f.path] for f in in_scope if f.path in by_path]
    missing = [f for f in in_scope if f.path not in by_path]
    stale = sum(1 for path in by_path if path not in live_paths)
    return kept, missing, stale


def _consolidate(table: Table, spec: TableConfig, scope_of: Callable[[list[Version], int], Scope], reader: Reader,
                 level: str = DAILY) -> tuple[ConsolidationResult, Version | None]:
    snapshot = table.current_snapshot()
    if snapshot is None:
        log.info("zonemap %s of %s: the table has no snapshot yet; nothing to consolidate", level, table.name())
        return ConsolidationResult(level, "", "empty_table"), None
    root = zonemap_root(table.location())
    hourly, daily = read_map(root, HOURLY), read_map(root, DAILY)
    micro = micro_files(table)
    scope = scope_of(daily, snapshot.timestamp_ms)
    sources = plan_sources(scope, micro, hourly, daily)
    log.info("zonemap %s %s of %s: reading %d zonemap files (%d micro on disk), reconciling with snapshot %s",
             scope.level, scope.period, table.name(), len(sources), len(micro), snapshot.snapshot_id)
    existing, unreadable = reader(sources)
    live = live_files(table, snapshot.snapshot_id)
    kept, missing, stale = reconcile_entries(existing, live, scope)
    added = entries_for_files(table, missing, spec.zonemap.columns, spec.zonemap.bloom_columns,
                              spec.zonemap.bloom_fpp, spec.zonemap.bloom_hour_column)
    drift = Drift(len(kept) + len(missing), len(kept), stale, len(added), unreadable)
    log.info("zonemap drift %s %s of %s: %d live files in scope, %.1f%% covered before reconcile, %d stale entries dropped, "
             "%d entries added from manifest metrics, %d unreadable zonemap files", scope.level, scope.period, table.name(),
             drift.live_files, 100 * drift.coverage, drift.stale_entries, drift.added, len(unreadable))
    # Sorted by partition (time, for time-partitioned tables) in small row groups with a summary of
    # each (lakeops.zonemap.groups), so a lookup reads only the row groups that can match.
    entries = sorted(kept + added, key=lambda e: (e.partition, e.file_path))
    sequence = snapshot.sequence_number or 0  # a v1 snapshot's is 0
    uri = version_uri(root, scope.level, scope.period, sequence, snapshot.snapshot_id)
    write_master(uri, to_arrow(entries, types_for(table.schema())), MASTER_ROW_GROUP)
    version = Version(uri, scope.level, scope.period, snapshot.snapshot_id, sequence,
                      scope.start_ms, scope.end_ms, len(entries), now_ms())
    record_version(root, version)
    log.info("zonemap %s %s of %s: published %d entries to %s", scope.level, scope.period, table.name(), len(entries), uri)
    return ConsolidationResult(scope.level, scope.period, "published", uri, snapshot.snapshot_id, len(entries), drift), version


def consolidate_hour(table: Table, spec: TableConfig, hour: datetime, reader: Reader = read_files) -> ConsolidationResult:
    """Micro zonemaps of the snapshots committed in hour -> one hourly version, reconciled."""
    scope = hour_scope(hour)
    result, _ = _consolidate(table, spec, lambda daily, snapshot_ms: scope, reader, HOURLY)
    return result


def _master(table: Table, spec: TableConfig, scope_of: Callable[[list[Version], int], Scope], reader: Reader,
            remove_micro: bool) -> ConsolidationResult:
    result, version = _consolidate(table, spec, scope_of, reader)
    if version is None or not remove_micro:
        return result
    committed = table.snapshot_by_id(version.snapshot_id)
    removable = removable_micro(micro_files(table), version, committed.timestamp_ms if committed else 0)
    for uri in removable:
        fs, path = _filesystem(uri)
        fs.delete_file(path)
    log.info("zonemap: removed %d micro zonemap files the master %s covers", len(removable), version.path)
    return ConsolidationResult(**{**result.__dict__, "removed_micro": len(removable)})


def consolidate_day(table: Table, spec: TableConfig, day: date, reader: Reader = read_files,
                    remove_micro: bool = True) -> ConsolidationResult:
    """Master + hourly + micro of everything committed through the end of day -> a new master
    version, reconciled; then the micro files it covers are removed (remove_micro=False keeps them)."""
    def scope_of(daily: list[Version], snapshot_ms: int) -> Scope:
        previous = newest(daily)
        return day_scope(day, snapshot_ms, previous.end_ms if previous else None)

    return _master(table, spec, scope_of, reader, remove_micro)


def _through_current(daily: list[Version], snapshot_ms: int) -> Scope:
    day = datetime.fromtimestamp(snapshot_ms / 1000, tz=UTC).date()
    return Scope(DAILY, day.isoformat(), None, snapshot_ms + 1)


def reconcile(table: Table, spec: TableConfig, reader: Reader = read_files) -> ConsolidationResult:
    """A new master through the current snapshot: call it right after rewriting files (compaction).
    Dropped files' entries go, the new files get entries; micro files stay for the daily run."""
    return _master(table, spec, _through_current, reader, remove_micro=False)


def consolidate_now(table: Table, spec: TableConfig, reader: Reader = read_files) -> ConsolidationResult:
    """A new master through the current snapshot that also removes the micro files it covers: the
    load-driven consolidation (lakeops.zonemap.load) when micro zonemaps pile up between runs."""
    return _master(table, spec, _through_current, reader, remove_micro=True)
