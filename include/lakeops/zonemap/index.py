"""The index a reader uses: the current daily master, the current hourly versions it does not
cover, and the micro files on disk, merged by data file path (entries of one immutable file agree)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakeops.zonemap.entry import ZonemapEntry
from lakeops.zonemap.levels import DAILY, HOURLY, current_versions
from lakeops.zonemap.snapmap import list_files, read_map
from lakeops.zonemap.store import read_files, zonemap_root

if TYPE_CHECKING:
    from pyiceberg.table import Table


@dataclass(frozen=True)
class IndexFiles:
    master: str | None
    hourly: list[str]
    micro: list[str]


def index_files(table_location: str) -> IndexFiles:
    root = zonemap_root(table_location)
    master, hourly = current_versions(read_map(root, HOURLY), read_map(root, DAILY))
    return IndexFiles(master.path if master else None, [v.path for v in hourly], list_files(root, "micro"))


def load_index(table: Table) -> tuple[dict[str, ZonemapEntry], list[str]]:
    files = index_files(table.location())
    entries, unreadable = read_files(([files.master] if files.master else []) + files.hourly + files.micro)
    return {e.file_path: e for e in entries}, unreadable
