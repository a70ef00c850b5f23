"""The index a reader uses, routed hot and cold:

* hot: the micro files on disk and the current hourly versions the master does not cover (recent
  commits), their entries held in memory by lakeops.zonemap.hot under a memory bound;
* cold: the current daily master, read from disk at each lookup and never held: first only the
  statistics columns (no Bloom filters) for the live files the hot part lacks, then the Bloom
  filters of just the row groups where files survive. The master is sorted by partition, so a
  recent time range touches few row groups and an old one is served from disk alone.

Entries of one immutable data file agree wherever they come from.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyiceberg.expressions import BooleanExpression

from lakeops.zonemap.entry import ZonemapEntry
from lakeops.zonemap.hot import HOT
from lakeops.zonemap.levels import DAILY, HOURLY, current_versions
from lakeops.zonemap.prune import may_match
from lakeops.zonemap.snapmap import list_files, read_map
from lakeops.zonemap.store import _filesystem, from_arrow, read_files, zonemap_root

if TYPE_CHECKING:
    from pyiceberg.schema import Schema
    from pyiceberg.table import Table

log = logging.getLogger(__name__)
_READ_ERRORS = (OSError, ValueError, KeyError)


@dataclass(frozen=True)
class IndexFiles:
    master: str | None
    hourly: list[str]
    micro: list[str]


def index_files(table_location: str) -> IndexFiles:
    root = zonemap_root(table_location)
    master, hourly = current_versions(read_map(root, HOURLY), read_map(root, DAILY))
    return IndexFiles(master.path if master else None, [v.path for v in hourly], list_files(root, "micro"))


def _read_hot(uri: str) -> list[ZonemapEntry] | None:
    """Entries of one hot file, from memory when unchanged since it was cached; None when unreadable."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyarrow.fs import FileType

    fs, path = _filesystem(uri)
    info = fs.get_file_info(path)
    if info.type != FileType.File:
        return []  # removed by a consolidation since it was listed: the master holds its entries
    key = (uri, info.size, info.mtime_ns)
    cached = HOT.get(key)
    if cached is not None:
        return cached
    try:
        with fs.open_input_file(path) as stream:
            data = pq.read_table(stream)
        entries = from_arrow(data)
    except (*_READ_ERRORS, pa.ArrowInvalid) as e:
        log.warning("zonemap file %s is unreadable (%s); its files will be read in full until it is rebuilt", uri, e)
        return None
    HOT.put(key, entries, data.nbytes)
    return entries


def hot_index(files: IndexFiles) -> tuple[dict[str, ZonemapEntry], list[str]]:
    index: dict[str, ZonemapEntry] = {}
    unreadable = []
    for uri in files.hourly + files.micro:
        entries = _read_hot(uri)
        if entries is None:
            unreadable.append(uri)
        else:
            index.update({e.file_path: e for e in entries})
    return index, unreadable


@dataclass(frozen=True)
class ColdAnswer:
    keep: set[str]
    """Live files the master holds that may match."""
    indexed: set[str]
    """Live files the master holds an entry for."""
    stale: int
    unreadable: list[str]


def cold_lookup(master: str | None, wanted: set[str], live: set[str], predicate: BooleanExpression, schema: Schema) -> ColdAnswer:
    """Decide the wanted live files from the master on disk, reading as little of it as possible."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if master is None or not wanted:
        return ColdAnswer(set(), set(), 0, [])
    fs, path = _filesystem(master)
    try:
        with fs.open_input_file(path) as stream:
            parquet = pq.ParquetFile(stream)
            stats = parquet.read(columns=["file_path", "record_count", "columns"])
            paths = stats.column("file_path").to_pylist()
            rows = [i for i, p in enumerate(paths) if p in wanted]
            entries = from_arrow(stats.take(rows)) if rows else []
            survivors = [(i, e) for i, e in zip(rows, entries, strict=False) if may_match(e, predicate, schema)]
            blooms = _blooms_of(parquet, [i for i, _ in survivors]) if survivors else {}
    except (*_READ_ERRORS, pa.ArrowInvalid) as e:
        log.warning("zonemap master %s is unreadable (%s); its files will be read in full until it is rebuilt", master, e)
        return ColdAnswer(set(), set(), 0, [master])
    keep = {e.file_path for _, e in survivors
            if e.file_path not in blooms
            or may_match(ZonemapEntry(e.file_path, 0, e.record_count, 0, "", e.columns, blooms[e.file_path]), predicate, schema)}
    return ColdAnswer(keep, {e.file_path for e in entries}, sum(1 for p in paths if p not in live), [])


def _blooms_of(parquet, rows: list[int]) -> dict:
    """Bloom filters of the given rows, reading only the row groups that hold them."""
    from lakeops.zonemap.bloom import BloomFilter

    bounds, start = [], 0
    for g in range(parquet.num_row_groups):
        count = parquet.metadata.row_group(g).num_rows
        bounds.append((start, start + count))
        start += count
    groups = sorted({g for r in rows for g, (lo, hi) in enumerate(bounds) if lo <= r < hi})
    out = {}
    for g in groups:
        data = parquet.read_row_group(g, columns=["file_path", "blooms"]).to_pylist()
        lo = bounds[g][0]
        for r in rows:
            if bounds[g][0] <= r < bounds[g][1]:
                row = data[r - lo]
                out[row["file_path"]] = {b["field_id"]: BloomFilter(b["bits"], b["hashes"]) for b in row["blooms"] or []}
    return out


def load_index(table: Table) -> tuple[dict[str, ZonemapEntry], list[str]]:
    """Every entry of the current index (master, hourly, micro), read from disk: for inspection and tests."""
    files = index_files(table.location())
    entries, unreadable = read_files(([files.master] if files.master else []) + files.hourly + files.micro)
    return {e.file_path: e for e in entries}, unreadable
