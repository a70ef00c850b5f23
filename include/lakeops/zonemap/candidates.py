"""candidate_files(table, predicate, snapshot=None): the live data files that may hold matching rows.

Conservative by construction: a live file is skipped only when its zonemap entry proves that no
row matches; a live file with no entry (written after the last zonemap, or whose zonemap file
is unreadable) is always a candidate, and entries of files no longer live are ignored.

Planned from the index, not from the table (lakeops.zonemap.history): the daily master's files,
replayed forward with the files added and deleted by the snapshots it does not account for. Only
when the master cannot serve the snapshot are all live files listed from the manifests. The
master is read by row group (lakeops.zonemap.groups): the predicate is evaluated over its row-group
summary first, then (lakeops.zonemap.evaluate) over the statistics of the candidate row groups'
entries at once, then over the Bloom filters of the survivors; recent files from the hot micro and
hourly entries. A master without a row-group summary, or a full listing, reads the master whole.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyiceberg.expressions import BooleanExpression

from lakeops.zonemap.build import partition_string
from lakeops.zonemap.columns import ColumnarIndex, blooms_of, concat, empty_index
from lakeops.zonemap.evaluate import may_match_all
from lakeops.zonemap.groups import MasterGroups, candidate_groups, count_paths, master_groups, read_groups, rows_of
from lakeops.zonemap.history import AddedFile, chain_deltas, replay, replay_chain, snapshot_refs
from lakeops.zonemap.hot import HOT, set_hot_memory
from lakeops.zonemap.index import STORED, IndexFiles, file_key, index_files, load_columns, load_many, master_blooms
from lakeops.zonemap.live import live_files
from lakeops.zonemap.lru import LruCache
from lakeops.zonemap.snapmap import micro_snapshot_id
from lakeops.zonemap.store import types_for

if TYPE_CHECKING:
    from collections.abc import Callable

    from pyiceberg.schema import Schema
    from pyiceberg.table import Table

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Candidates:
    files: list[str]
    live_files: int
    indexed_live_files: int
    stale_entries: int
    unreadable_zonemaps: list[str]
    hot_files: int = 0
    """Live files decided from the in-memory (micro/hourly) entries; the other indexed ones came from the master."""
    minmax_files: int = 0
    """Candidates by min/max statistics alone (no Bloom filter): about what Iceberg's own file metrics keep."""
    replayed_snapshots: int = 0
    """Snapshots whose manifests were read on top of the master (0 with a full listing)."""
    full_listing: bool = False
    """True when the master could not serve the snapshot and every live file was listed from the manifests."""
    sizes: dict[str, int] = field(default_factory=dict)
    """Candidate path -> file size in bytes."""
    record_counts: dict[str, int] = field(default_factory=dict)
    partitions: dict[str, str | None] = field(default_factory=dict)
    """Candidate path -> partition as the index stores it (lakeops.zonemap.build.partition_string)."""

    @property
    def coverage(self) -> float:
        """Share of live files the index covers (1.0: no drift)."""
        return self.indexed_live_files / self.live_files if self.live_files else 1.0

    @property
    def candidate_bytes(self) -> int:
        return sum(self.sizes.get(p, 0) for p in self.files)


@dataclass(frozen=True)
class LivePlan:
    """The live files of one snapshot, relative to the master (history.replay) or listed in full."""

    removed: set[str]
    """Master paths no longer live (incremental) - empty with a full listing."""
    added: dict[str, AddedFile]
    """Incremental: live files the master does not hold. Full listing: every live file."""
    replayed: int
    full: bool


def _micro_listing(files: IndexFiles, types: dict) -> Callable[[int], list[AddedFile] | None]:
    """Snapshot id -> the files its micro zonemap lists (None without a readable one): what an append added,
    without reading its manifests (history.append_delta checks the count against its summary). The micro
    zonemaps are loaded through the hot index's cache, where the lookup loads them anyway."""
    by_snapshot = {micro_snapshot_id(uri): uri for uri in files.micro}

    def listed(snapshot_id: int) -> list[AddedFile] | None:
        uri = by_snapshot.get(snapshot_id)
        index = load_columns(uri, types, blooms=STORED) if uri is not None else None
        if index is None:
            return None
        partitions = index.partition.fill_null("").to_pylist()
        return list(map(AddedFile, index.paths.to_pylist(), index.file_size.tolist(), index.record_count.tolist(),
                        partitions))

    return listed


def plan_live(table: Table, snapshot_id: int, files: IndexFiles, types: dict | None = None) -> LivePlan:
    """The snapshot's live files from the master plus the snapshots since (an append's from its micro zonemap when
    types are given to read it); a full listing when the master cannot serve the snapshot."""
    version = files.master_version
    chain = None
    if version is not None:
        chain = replay_chain(snapshot_refs(table), snapshot_id, version.snapshot_id, version.end_ms)
    if chain is None:
        listed = {f.path: AddedFile(f.path, f.data_file.file_size_in_bytes, f.data_file.record_count,
                                    partition_string(f.data_file))
                  for f in live_files(table, snapshot_id)}
        return LivePlan(set(), listed, 0, True)
    deltas = chain_deltas(table, chain, _micro_listing(files, types) if types is not None else None)
    deleted = {p for d in deltas for p in d.deleted}
    removed, added = replay(deleted, deltas)
    return LivePlan(removed, added, len(chain), False)


@dataclass(frozen=True)
class _Prepared:
    """What candidate_files knows of one snapshot before it sees a predicate: the index's live rows."""

    master_uri: str | None
    master: ColumnarIndex
    """The whole master's statistics; empty when it is read by row group (groups)."""
    master_live: np.ndarray
    """Mask over master rows: live in the snapshot."""
    groups: MasterGroups | None
    """Set: the master is read by row group at each lookup, its rows in plan.removed not live."""
    live_master: int
    hot: ColumnarIndex
    """Hot entries of live files outside the master (one per file), statistics only."""
    hot_stored: list[pa.Array | None]
    """The Bloom filters of each hot zonemap file as stored; hot row i's are hot_stored[hot_part[i]][hot_local[i]]."""
    hot_part: np.ndarray
    hot_local: np.ndarray
    unindexed: list[str]
    plan: LivePlan
    stale: int
    unreadable: list[str]

    @property
    def live_files(self) -> int:
        return self.live_master + len(self.hot) + len(self.unindexed)


PREPARED: LruCache[tuple, _Prepared] = LruCache(4)
"""A few prepared snapshots; only those whose index the memory bound holds."""
HOT.add_dependent(PREPARED.clear)


def _prepare(table: Table, snapshot_id: int, files: IndexFiles, types: dict, unreadable: list[str] | None = None,
             by_group: bool = True) -> _Prepared:
    unreadable = list(unreadable or [])
    groups = None
    if files.master and by_group:
        key = file_key(files.master)
        groups = master_groups(files.master, key, types) if key is not None else None
        if key is not None and groups is None:  # unreadable: its files are listed from the manifests, read in full
            unreadable.append(files.master)
            files = IndexFiles(None, files.hourly, files.micro)
    hot_uris = files.hourly + files.micro
    # Held when they fit the bound: plan_live's micro listing then reads none of them again.
    loaded_hot = load_many(hot_uris, types, blooms=STORED)
    plan = plan_live(table, snapshot_id, files, types)
    master_removed = count_paths(groups, plan.removed) if groups is not None and not plan.full and \
        groups.summary is not None else None
    if groups is not None and master_removed is not None:
        master = empty_index()
        master_live = np.zeros(0, bool)
        live_master = groups.rows - master_removed
        stale = master_removed
    else:
        groups = None
        loaded = load_columns(files.master, types, blooms=False) if files.master else empty_index()
        if loaded is None:  # its files are then listed from the manifests and read in full: never lost
            unreadable.append(str(files.master))
            files = IndexFiles(None, files.hourly, files.micro)
            if not plan.full:
                plan = plan_live(table, snapshot_id, files, types)
        master = loaded or empty_index()
    parts = []
    for uri, part in zip(hot_uris, loaded_hot, strict=True):
        if part is None:
            unreadable.append(uri)
        else:
            parts.append(part)
    hot = dataclasses.replace(concat(parts), stored_blooms=None)
    sizes = np.array([len(part) for part in parts], np.int64)
    part_of = np.repeat(np.arange(len(parts)), sizes)
    local = np.arange(len(hot)) - (np.cumsum(sizes) - sizes)[part_of]  # row within its own file
    in_master: set[str] = set()
    if groups is not None:
        outside = list(plan.added)
    elif plan.full:
        master_live = _mask(pc.is_in(master.paths, value_set=pa.array(list(plan.added), pa.string())))
        in_master = set(master.paths.filter(pa.array(master_live)).to_pylist())
        outside = [p for p in plan.added if p not in in_master]
    else:
        master_live = ~_mask(pc.is_in(master.paths, value_set=pa.array(list(plan.removed), pa.string())))
        outside = list(plan.added)
    if groups is None:
        live_master = int(master_live.sum())
        stale = len(master) - live_master
    # Files outside the master: from the hot entries (first entry of a path wins), else unindexed.
    hot_paths = hot.paths.to_pylist()
    first = dict(zip(reversed(hot_paths), range(len(hot_paths) - 1, -1, -1), strict=True))  # the last write wins: a first row
    outside_set = set(outside)
    elsewhere = first.keys() - outside_set
    kept = {p: i for p, i in first.items() if p not in elsewhere} if elsewhere else first
    hot_rows = np.sort(np.fromiter(kept.values(), np.int64, len(kept)))
    stale += sum(1 for p in elsewhere if not (p in in_master or _master_holds(plan, p)))
    unindexed = [p for p in outside if p not in first] if len(outside_set) > len(kept) else []
    every = len(hot_rows) == len(hot)  # one entry per file, all outside the master: held as loaded, no copy
    if not every:
        hot, part_of, local = hot.take(hot_rows), part_of[hot_rows], local[hot_rows]
    return _Prepared(files.master, master, master_live, groups, live_master, hot, [p.stored_blooms for p in parts],
                     part_of, local, unindexed, plan, stale, unreadable)


def _prepared(table: Table, snapshot_id: int, schema: Schema) -> _Prepared:
    """The snapshot's prepared index, from this process's cache while the index files are unchanged."""
    files = index_files(table.location())
    types = types_for(schema)
    uris = ([files.master] if files.master else []) + files.hourly + files.micro
    key = (str(table.metadata.table_uuid), snapshot_id, schema.schema_id, tuple(file_key(u) for u in uris))
    found = PREPARED.get(key)
    if found is None:
        found = _prepare(table, snapshot_id, files, types)
        held = found.master.nbytes + found.hot.nbytes + (found.groups.nbytes if found.groups is not None else 0) + \
            sum(stored.nbytes for stored in found.hot_stored if stored is not None)
        if held <= HOT.stats().max_bytes:
            PREPARED.put(key, found)
    return found


def candidate_files(table: Table, predicate: BooleanExpression, snapshot: int | None = None, *,
                    hot_memory_mb: int | None = None) -> Candidates:
    if hot_memory_mb is not None:
        set_hot_memory(hot_memory_mb)
    current = table.current_snapshot()
    snapshot_id = snapshot if snapshot is not None else (current.snapshot_id if current else None)
    if snapshot_id is None:
        return Candidates([], 0, 0, 0, [])
    schema = table.schema()
    prep = _prepared(table, snapshot_id, schema)
    master, rows, live = prep.master, np.arange(len(prep.master), dtype=np.int64), prep.master_live
    by_group = prep.groups
    if by_group is not None:
        which = candidate_groups(by_group, predicate, schema)
        read = read_groups(by_group, which, types_for(schema))
        if read is None:  # the master became unreadable: plan without it (its files listed, read in full)
            files = index_files(table.location())
            prep = _prepare(table, snapshot_id, IndexFiles(None, files.hourly, files.micro), types_for(schema),
                            [str(prep.master_uri)], by_group=False)
            master, rows, live = prep.master, np.arange(len(prep.master), dtype=np.int64), prep.master_live
        else:
            removed = prep.plan.removed
            master, rows = read, rows_of(by_group, which)
            live = ~_mask(pc.is_in(master.paths, value_set=pa.array(list(removed), pa.string()))) if removed else \
                np.ones(len(master), bool)
        log.debug("zonemap plan of %s: %d of %d master row groups read", table.name(), len(which),
                  len(by_group.starts) - 1)
    hot, plan = prep.hot, prep.plan
    unreadable = list(prep.unreadable)

    # Master: statistics over every entry read at once (live ones kept), then Bloom filters of the survivors only.
    minmax_master = np.nonzero(may_match_all(master, predicate, schema) & live)[0] if len(master) else \
        np.zeros(0, np.int64)
    kept_master = minmax_master
    master_uri = prep.master_uri
    if len(minmax_master) and master_uri:
        blooms = master_blooms(master_uri, rows[minmax_master], by_group.metadata if by_group is not None else None)
        if blooms is None:
            unreadable.append(master_uri)
        elif blooms:
            with_blooms = dataclasses.replace(master.take(minmax_master), blooms=blooms)
            kept_master = minmax_master[may_match_all(with_blooms, predicate, schema)]
    # Hot: statistics over every entry, then the Bloom filters of the survivors only, decoded for them alone.
    minmax_hot = may_match_all(hot, predicate, schema, use_blooms=False) if len(hot) else np.zeros(0, bool)
    kept_hot = np.nonzero(minmax_hot)[0]
    if len(kept_hot):
        hot_blooms = blooms_of(prep.hot_stored, prep.hot_part[kept_hot], prep.hot_local[kept_hot])
        if hot_blooms:
            with_blooms = dataclasses.replace(hot.take(kept_hot), blooms=hot_blooms)
            kept_hot = kept_hot[may_match_all(with_blooms, predicate, schema)]

    sizes: dict[str, int] = {}
    counts: dict[str, int] = {}
    partitions: dict[str, str | None] = {}
    for index, rows in ((master, kept_master), (hot, kept_hot)):
        paths = index.paths.take(pa.array(rows, pa.int64())).to_pylist()
        sizes.update(zip(paths, index.file_size[rows].tolist(), strict=True))
        counts.update(zip(paths, index.record_count[rows].tolist(), strict=True))
        partitions.update(zip(paths, index.partition.take(pa.array(rows, pa.int64())).to_pylist(), strict=True))
    for p in [*prep.unindexed, *(p for p in sizes if p in plan.added)]:
        # What the manifests said, where the plan read them (an old index file may lack sizes).
        found = plan.added[p]
        sizes[p], counts[p], partitions[p] = found.file_size, found.record_count, found.partition
    chosen = list(sizes)
    live_master = prep.live_master
    log.debug("zonemap plan of %s at %s: %d live (%d replayed snapshots%s), %d candidates", table.name(), snapshot_id,
              prep.live_files, plan.replayed, ", full listing" if plan.full else "", len(chosen))
    return Candidates(chosen, prep.live_files, live_master + len(hot), prep.stale, unreadable, len(hot),
                      len(minmax_master) + int(minmax_hot.sum()) + len(prep.unindexed), plan.replayed, plan.full, sizes,
                      counts, partitions)


def _master_holds(plan: LivePlan, path: str) -> bool:
    """Whether a hot entry's file is live through the master (incremental plan): not a stale entry."""
    return not plan.full and path not in plan.removed and path not in plan.added


def _mask(result: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return pc.fill_null(result, False).to_numpy(zero_copy_only=False).astype(bool)
