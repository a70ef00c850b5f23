"""Zonemap garbage: the zonemap files only expired snapshots still use.

Which file serves which snapshot is the zonemap package's knowledge (zonemap_files_for_snapshots);
this module only picks the files whose snapshots all expire. A file serving no snapshot at all (a
version whose consolidation died before its map switch) may belong to a run still writing, so it is
collected only once older than the orphan window, like any orphan.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyiceberg.table import Table


@dataclass(frozen=True)
class ZonemapFile:
    path: str
    size: int
    modified_ms: int


def zonemap_garbage(served: Mapping[str, set[int]], files: Iterable[ZonemapFile], expire: Iterable[int],
                    orphan_older_than_ms: int) -> list[ZonemapFile]:
    """Pure: served maps a zonemap file to the snapshots it serves; the result is what may go."""
    expire = set(expire)
    out = []
    for f in files:
        snapshots = served.get(f.path)
        if snapshots is None:
            continue  # not a zonemap file the map knows (maps, temporary files): never touched
        if (snapshots and snapshots <= expire) or (not snapshots and f.modified_ms < orphan_older_than_ms):
            out.append(f)
    return sorted(out, key=lambda f: f.path)


def collect(table: Table, expire: Iterable[int], orphan_older_than_ms: int) -> list[ZonemapFile]:
    """The zonemap files of table to delete when `expire` goes (computed before the expiry)."""
    from lakeops.catalogs.fileio import filesystem_for
    from lakeops.zonemap.snapmap import zonemap_files_for_snapshots

    served = zonemap_files_for_snapshots(table)
    files = []
    for path in served:
        fs, local = filesystem_for(path)
        info = fs.get_file_info(local)
        if info.size is not None:
            files.append(ZonemapFile(path, info.size, int(info.mtime.timestamp() * 1000) if info.mtime else 0))
    return zonemap_garbage(served, files, expire, orphan_older_than_ms)


def delete(files: Iterable[ZonemapFile]) -> int:
    from lakeops.catalogs.fileio import filesystem_for

    deleted = 0
    for f in files:
        fs, local = filesystem_for(f.path)
        try:
            fs.delete_file(local)
            deleted += 1
        except FileNotFoundError:
            continue
    return deleted
