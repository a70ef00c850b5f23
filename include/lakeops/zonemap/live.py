"""The live data files of a snapshot, each with the snapshot that added it and that snapshot's
commit time, read from the manifests (metadata only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyiceberg.manifest import DataFileContent, ManifestContent

if TYPE_CHECKING:
    from pyiceberg.manifest import DataFile
    from pyiceberg.table import Table


@dataclass(frozen=True)
class LiveFile:
    data_file: DataFile
    added_snapshot_id: int
    committed_ms: int | None
    """Commit time of the adding snapshot; None when that snapshot has been expired."""

    @property
    def path(self) -> str:
        return self.data_file.file_path


def live_files(table: Table, snapshot_id: int | None = None) -> list[LiveFile]:
    """Every data file live in snapshot_id (default: the current snapshot), in manifest order."""
    snapshot = table.snapshot_by_id(snapshot_id) if snapshot_id is not None else table.current_snapshot()
    if snapshot is None:
        if snapshot_id is not None:
            raise ValueError(f"snapshot {snapshot_id} is not in table {table.name()}; pick one of its current snapshots")
        return []
    commits = {s.snapshot_id: s.timestamp_ms for s in table.snapshots()}
    found = []
    for manifest in snapshot.manifests(table.io):
        if manifest.content != ManifestContent.DATA:
            continue
        for entry in manifest.fetch_manifest_entry(table.io, discard_deleted=True):
            if entry.data_file.content == DataFileContent.DATA and entry.snapshot_id is not None:
                found.append(LiveFile(entry.data_file, entry.snapshot_id, commits.get(entry.snapshot_id)))
    return found
