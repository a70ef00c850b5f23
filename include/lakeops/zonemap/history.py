"""The live files of a snapshot, planned from the index rather than from the table.

The daily master lists the live files, as of the snapshot M it was reconciled against, that were
added by snapshots committed before its scope end. So the live files of a later snapshot S are the
master's, replayed forward with the files added and deleted by the ancestors of S that the master
does not account for: those committed at or after its scope end, and those after M. Only those
snapshots' own manifests are read, so planning grows with what changed since the last
consolidation, not with the table.

`replay_chain` decides which snapshots to replay (pure, tested against literals); `snapshot_delta`
reads one snapshot's added and deleted data files (metadata only) and is cached per snapshot in the
process, as snapshots never change; `chain_deltas` reads those of a whole chain from its last
snapshot's manifest list, one list instead of one per snapshot, and takes an append's delta from its
micro zonemap instead when that lists every file the append added (`append_delta`): no manifest read.
When the master cannot serve S (none yet, S older than M or on another branch, an expired snapshot in
the way), the caller lists every live file instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from pyiceberg.manifest import DataFileContent, ManifestContent, ManifestEntryStatus, ManifestFile

from lakeops.zonemap.build import partition_string
from lakeops.zonemap.lru import LruCache

if TYPE_CHECKING:
    from collections.abc import Callable

    from pyiceberg.table import Table


@dataclass(frozen=True)
class SnapshotRef:
    snapshot_id: int
    parent_id: int | None
    sequence_number: int
    timestamp_ms: int


class AddedFile(NamedTuple):
    """A data file a snapshot added. A named tuple, not a frozen dataclass: a lookup builds one per file
    an append listed since the last consolidation, and a tuple is made several times faster."""

    path: str
    file_size: int
    record_count: int
    partition: str = ""
    """As the index stores it (lakeops.zonemap.build.partition_string)."""


@dataclass(frozen=True)
class Delta:
    """Data files one snapshot added and deleted."""

    added: tuple[AddedFile, ...]
    deleted: frozenset[str]


def replay_chain(snapshots: dict[int, SnapshotRef], target: int, master_snapshot: int, master_end_ms: int) -> list[int] | None:
    """Snapshot ids to replay over the master to reach target, oldest first; None when the master
    cannot serve target (it is not an ancestor of target, or an ancestor on the way is gone)."""
    master = snapshots.get(master_snapshot)
    if master is None:
        return None
    chain: list[int] = []
    seen_master = False
    current: int | None = target
    while current is not None:
        ref = snapshots.get(current)
        if ref is None:
            return None  # expired on the way: its files' commit times are unknown
        if ref.sequence_number <= master.sequence_number:
            if not seen_master and ref.snapshot_id != master_snapshot:
                return None  # the master's snapshot is not an ancestor of target
            seen_master = True
            if ref.timestamp_ms < master_end_ms:
                break
        chain.append(ref.snapshot_id)
        current = ref.parent_id
    if not seen_master:
        return None
    return chain[::-1]


def replay(master_paths: set[str], deltas: list[Delta]) -> tuple[set[str], dict[str, AddedFile]]:
    """(master paths no longer live, files added since and still live), deltas applied in order."""
    removed: set[str] = set()
    added: dict[str, AddedFile] = {}
    for delta in deltas:
        for path in delta.deleted:
            if added.pop(path, None) is None and path in master_paths:
                removed.add(path)
        for f in delta.added:
            added[f.path] = f
    return removed, added


def snapshot_refs(table: Table) -> dict[int, SnapshotRef]:
    return {s.snapshot_id: SnapshotRef(s.snapshot_id, s.parent_snapshot_id, s.sequence_number or 0, s.timestamp_ms)
            for s in table.snapshots()}


DELTAS: LruCache[tuple[str, int], Delta] = LruCache(4096)
"""Deltas by (table uuid, snapshot id): a snapshot never changes."""


def _own_manifests(manifests: list[ManifestFile], snapshot_ids: set[int]) -> dict[int, list[ManifestFile]]:
    """Snapshot id -> the data manifests it wrote that may hold its changes, of those listed."""
    own: dict[int, list[ManifestFile]] = {s: [] for s in snapshot_ids}
    for manifest in manifests:
        if manifest.content != ManifestContent.DATA or manifest.added_snapshot_id not in own:
            continue
        if manifest.added_files_count or manifest.deleted_files_count or manifest.added_files_count is None:
            own[manifest.added_snapshot_id].append(manifest)
    return own


def _delta_of(table: Table, snapshot_id: int, manifests: list[ManifestFile]) -> Delta:
    added, deleted = [], set()
    for manifest in manifests:
        for entry in manifest.fetch_manifest_entry(table.io, discard_deleted=False):
            f = entry.data_file
            if f.content != DataFileContent.DATA or entry.snapshot_id != snapshot_id:
                continue
            if entry.status == ManifestEntryStatus.ADDED:
                added.append(AddedFile(f.file_path, f.file_size_in_bytes, f.record_count, partition_string(f)))
            elif entry.status == ManifestEntryStatus.DELETED:
                deleted.add(f.file_path)
    return Delta(tuple(added), frozenset(deleted))


def listed_whole(manifests: list[ManifestFile], summary: dict[str, str] | None) -> bool:
    """Whether a later manifest list still holds every change a snapshot made: its own manifests there count
    the data files its summary says it added and deleted (a manifest merge since rewrites added entries as
    existing ones and drops deleted ones; a summary without the counts proves nothing)."""
    if summary is None or "added-data-files" not in summary and "deleted-data-files" not in summary:
        return False
    if any(m.added_files_count is None or m.deleted_files_count is None for m in manifests):
        return False
    return (sum(m.added_files_count or 0 for m in manifests) == int(summary.get("added-data-files") or 0)
            and sum(m.deleted_files_count or 0 for m in manifests) == int(summary.get("deleted-data-files") or 0))


def snapshot_delta(table: Table, snapshot_id: int) -> Delta:
    """The data files snapshot_id added and deleted: only the manifests it wrote are read."""
    key = (str(table.metadata.table_uuid), snapshot_id)
    cached = DELTAS.get(key)
    if cached is not None:
        return cached
    snapshot = table.snapshot_by_id(snapshot_id)
    if snapshot is None:
        raise ValueError(f"snapshot {snapshot_id} is not in table {table.name()}; it may have been expired")
    delta = _delta_of(table, snapshot_id, _own_manifests(snapshot.manifests(table.io), {snapshot_id})[snapshot_id])
    DELTAS.put(key, delta)
    return delta


def append_delta(operation: str | None, summary: dict[str, str] | None, listed: list[AddedFile]) -> Delta | None:
    """The delta of a snapshot from a listing of the files it added (its micro zonemap), or None when the listing
    cannot stand for it: the snapshot is not an append (only an append deletes no data file), or its summary does
    not count exactly the listed files."""
    if operation != "append" or summary is None or "added-data-files" not in summary:
        return None
    added = int(summary["added-data-files"])
    if int(summary.get("deleted-data-files") or 0) or len(listed) != added or len({f.path for f in listed}) != added:
        return None
    return Delta(tuple(listed), frozenset())


def chain_deltas(table: Table, chain: list[int], listed: Callable[[int], list[AddedFile] | None] | None = None
                 ) -> list[Delta]:
    """snapshot_delta of each snapshot of chain (ancestors of its last one, oldest first). An append whose added
    files `listed` gives (its micro zonemap) takes its delta from them (append_delta). The others read the last
    snapshot's manifest list once instead of each snapshot's own: a snapshot's manifests stay listed by its
    descendants until a manifest merge rewrites them, which its summary counts reveal (listed_whole); such
    a snapshot reads its own list."""
    key = str(table.metadata.table_uuid)
    missing = [s for s in chain if DELTAS.get((key, s)) is None]
    if listed is not None:
        for s in list(missing):
            snapshot = table.snapshot_by_id(s)
            if snapshot is None or snapshot.summary is None:
                continue
            files = listed(s)
            delta = None if files is None else append_delta(snapshot.summary.operation.value,
                                                            snapshot.summary.additional_properties, files)
            if delta is not None:
                DELTAS.put((key, s), delta)
                missing.remove(s)
    if len(missing) > 1:
        last = table.snapshot_by_id(chain[-1])
        if last is not None:
            own = _own_manifests(last.manifests(table.io), set(missing))
            for s in missing:
                snapshot = table.snapshot_by_id(s)
                summary = snapshot.summary.additional_properties if snapshot and snapshot.summary else None
                if listed_whole(own[s], summary):
                    DELTAS.put((key, s), _delta_of(table, s, own[s]))
    return [snapshot_delta(table, s) for s in chain]
