"""Files an expiry would delete, predicted from Iceberg metadata: every file a snapshot to expire
reaches (manifest list, manifests, data and delete files) that no snapshot kept still reaches.
Used for the dry-run report and checked against the files a real run removed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyiceberg.table import Table


@dataclass(frozen=True)
class FileSet:
    files: dict[str, int]
    """path -> bytes"""

    @property
    def count(self) -> int:
        return len(self.files)

    @property
    def bytes(self) -> int:
        return sum(self.files.values())


def reachable(table: Table, snapshot_ids: Iterable[int], cache: dict[str, dict[str, int]] | None = None) -> dict[str, int]:
    """path -> size of every file the given snapshots reach. Each manifest is read once (cache)."""
    cache = {} if cache is None else cache
    io = table.io
    out: dict[str, int] = {}
    for snapshot_id in snapshot_ids:
        snapshot = table.snapshot_by_id(snapshot_id)
        if snapshot is None:
            continue
        out[snapshot.manifest_list] = len(io.new_input(snapshot.manifest_list))
        for manifest in snapshot.manifests(io):
            out[manifest.manifest_path] = manifest.manifest_length
            if manifest.manifest_path not in cache:
                cache[manifest.manifest_path] = {e.data_file.file_path: e.data_file.file_size_in_bytes
                                                 for e in manifest.fetch_manifest_entry(io, discard_deleted=True)}
            out.update(cache[manifest.manifest_path])
    return out


def predicted_removals(table: Table, expire: Iterable[int]) -> FileSet:
    expire = set(expire)
    cache: dict[str, dict[str, int]] = {}
    kept = reachable(table, [s.snapshot_id for s in table.snapshots() if s.snapshot_id not in expire], cache)
    gone = reachable(table, expire, cache)
    return FileSet({path: size for path, size in gone.items() if path not in kept})
