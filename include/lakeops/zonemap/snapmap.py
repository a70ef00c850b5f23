"""The snapshot map: which zonemap version (file) covers which table snapshot.

Layout under <table location>/_zonemaps/:

    micro/<snapshot id>.parquet                     one per ingest commit (the files it added)
    hourly/<YYYY-MM-DDTHH>/v<seq>-<snapshot>.parquet   one version per hourly consolidation
    daily/<YYYY-MM-DD>/v<seq>-<snapshot>.parquet       one version per daily master (or reconcile)
    map/hourly.json, map/daily.json                 the snapshot map of each level

A consolidation writes its version file atomically (temporary name, then a move), then switches
the pointer: it rewrites its level's map file the same way. Each map record names the version's
file, its period, the snapshot it was reconciled against (`snapshot_id`, `sequence_number`), the
commit-time scope it covers and its entry count. Readers take the current versions from the map,
never by listing, so a version file written by a run that died before its map switch is never read.

How a caller finds which zonemap files belong to which snapshots (snapshot expiry uses this):
call ``zonemap_files_for_snapshots(table)``. It returns every zonemap file under the table,
mapped to the ids of the table's (unexpired) snapshots it serves:

* a master or hourly version serves the snapshots from the one it was reconciled against
  (by sequence number) up to, not including, the one its replacement was reconciled against; an
  hourly version is replaced by a newer version of its hour or by a master covering its hour;
* a micro file serves its own snapshot and every later one;
* a current version and every micro file also serve the current snapshot, always;
* a version file missing from the map (its run died before the switch) serves none.

Each level's map is rewritten by one consolidation at a time (its DAG runs one at a time). A
reconcile() racing the daily run can lose one of the two map records; the lost version is then a
file missing from the map: never read, collected as garbage, and the other version is complete.

A file mapped to an empty set is referenced only by expired snapshots (or by none) and may be
deleted; a file with any live snapshot must stay. Deleting a zonemap file never loses rows (its
data files are then read in full), only pruning.
"""

from __future__ import annotations

import json
import logging
import time
from typing import TYPE_CHECKING

from lakeops.atomic import atomic_output
from lakeops.zonemap.levels import DAILY, HOURLY, MicroFile, Version, files_for_snapshots
from lakeops.zonemap.store import _filesystem, zonemap_root

if TYPE_CHECKING:
    from pyiceberg.table import Table

log = logging.getLogger(__name__)
MAP_DIR = "map"


def map_uri(root: str, level: str) -> str:
    return f"{root}/{MAP_DIR}/{level}.json"


def version_uri(root: str, level: str, period: str, sequence_number: int, snapshot_id: int) -> str:
    return f"{root}/{level}/{period}/v{sequence_number:012d}-{snapshot_id}.parquet"


def read_map(root: str, level: str) -> list[Version]:
    """The level's versions; an unreadable map is logged and read as empty (every file then read in full)."""
    fs, path = _filesystem(map_uri(root, level))
    try:
        with fs.open_input_stream(path) as stream:
            data = json.loads(stream.read())
        return [Version(**record) for record in data["versions"]]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, KeyError, TypeError) as e:
        log.warning("zonemap map %s is unreadable (%s); it is ignored and rewritten by the next consolidation", path, e)
        return []


def write_map(root: str, level: str, versions: list[Version]) -> None:
    """Switch the level's pointer atomically: a temporary file, then a move over the old map."""
    with atomic_output(*_filesystem(map_uri(root, level))) as out:
        out.write(json.dumps({"versions": [v.as_dict() for v in versions]}, indent=1).encode())


def record_version(root: str, version: Version) -> list[Version]:
    """Add a published version to its level's map; records whose file is gone are dropped."""
    kept = [v for v in read_map(root, version.level) if v.path != version.path and exists(v.path)]
    versions = [*kept, version]
    write_map(root, version.level, versions)
    return versions


def exists(uri: str) -> bool:
    from pyarrow.fs import FileType

    fs, path = _filesystem(uri)
    return fs.get_file_info(path).type == FileType.File


def list_files(root: str, level: str) -> list[str]:
    """Visible Parquet files under one level (temporary files are hidden by their leading dot)."""
    from pyarrow.fs import FileSelector, FileType

    fs, path = _filesystem(f"{root}/{level}")
    prefix = root.split("://", 1)[0] + "://" if "://" in root else ""
    infos = fs.get_file_info(FileSelector(path, allow_not_found=True, recursive=True))
    return sorted(prefix + i.path for i in infos
                  if i.type == FileType.File and not i.base_name.startswith((".", "_")) and i.base_name.endswith(".parquet"))


def micro_snapshot_id(uri: str) -> int | None:
    """The snapshot a micro zonemap file serves, from its name (<snapshot id>.parquet); None for another name."""
    name = uri.rsplit("/", 1)[-1].removesuffix(".parquet")
    return int(name) if name.lstrip("-").isdigit() else None


def micro_files(table: Table) -> list[MicroFile]:
    commits = {s.snapshot_id: s.timestamp_ms for s in table.snapshots()}
    found = []
    for uri in list_files(zonemap_root(table.location()), "micro"):
        snapshot_id = micro_snapshot_id(uri)
        if snapshot_id is not None:
            found.append(MicroFile(uri, snapshot_id, commits.get(snapshot_id)))
    return found


def _same(a: str, b: str) -> bool:
    return a.split("://", 1)[-1].lstrip("/") == b.split("://", 1)[-1].lstrip("/")


def zonemap_files_for_snapshots(table: Table) -> dict[str, set[int]]:
    """Every zonemap file of table -> the ids of the unexpired snapshots it serves (module docstring)."""
    root = zonemap_root(table.location())
    versions = read_map(root, HOURLY) + read_map(root, DAILY)
    versions = [v for v in versions if exists(v.path)]
    on_disk = list_files(root, HOURLY) + list_files(root, DAILY)
    unmapped = [p for p in on_disk if not any(_same(p, v.path) for v in versions)]
    sequences = {s.snapshot_id: s.sequence_number or 0 for s in table.snapshots()}  # a v1 snapshot's is 0
    current = table.current_snapshot()
    return files_for_snapshots(versions, unmapped, micro_files(table), sequences, current.snapshot_id if current else None)


def now_ms() -> int:
    return int(time.time() * 1000)
