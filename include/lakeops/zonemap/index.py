"""The index a reader uses, as columns (lakeops.zonemap.columns):

* the current daily master: its statistics (not its Bloom filters) decoded once and held in
  memory while they fit the bound (zonemap.hot_memory_mb), else read from disk at each lookup;
  the Bloom filters of just the row groups where files survive the statistics are read per lookup
  (the master is sorted by partition, so a time range touches few row groups);
* the hot part: the micro files and the current hourly versions the master does not cover (recent
  commits), statistics decoded and Bloom filters as stored (decoded per lookup for the entries the
  statistics keep: blooms=STORED), held under the same bound.

A held file is keyed by its path, size and modification time, so a rewritten one is read again.
Entries of one immutable data file agree wherever they come from.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from lakeops.zonemap.columns import Blooms, ColumnarIndex, blooms_from_stored, empty_index, from_stored
from lakeops.zonemap.entry import ZonemapEntry
from lakeops.zonemap.hot import HOT
from lakeops.zonemap.levels import DAILY, HOURLY, Version, current_versions
from lakeops.zonemap.snapmap import list_files, read_map
from lakeops.zonemap.store import _filesystem, read_file, read_files, zonemap_root

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyiceberg.table import Table
    from pyiceberg.types import PrimitiveType

log = logging.getLogger(__name__)
_READ_ERRORS = (OSError, ValueError, KeyError)
_WITHOUT_BLOOMS = ["file_path", "record_count", "file_size", "partition", "columns"]
_READERS = 4
"""Zonemap files read side by side by load_many (Parquet reads release the GIL)."""
STORED: Literal["stored"] = "stored"
"""load_columns/load_many: read the Bloom filters but keep them as stored (ColumnarIndex.stored_blooms)."""
BloomMode = bool | Literal["stored"]


@dataclass(frozen=True)
class IndexFiles:
    master: str | None
    hourly: list[str]
    micro: list[str]
    master_version: Version | None = None
    """The master's map record: the snapshot it was reconciled against and its scope."""


def index_files(table_location: str) -> IndexFiles:
    root = zonemap_root(table_location)
    master, hourly = current_versions(read_map(root, HOURLY), read_map(root, DAILY))
    return IndexFiles(master.path if master else None, [v.path for v in hourly], list_files(root, "micro"), master)


def file_key(uri: str) -> tuple | None:
    """(uri, size, modification time) of a zonemap file as it is now; None when the file is gone."""
    from pyarrow.fs import FileType

    fs, path = _filesystem(uri)
    info = fs.get_file_info(path)
    if info.type != FileType.File:
        return None
    return (uri, info.size, info.mtime_ns)


def _key(uri: str, types: dict[int, PrimitiveType], blooms: BloomMode) -> tuple | None:
    """The cache key of a zonemap file as it is now; None when the file is gone."""
    found = file_key(uri)
    return None if found is None else (*found, blooms, tuple(sorted((f, str(t)) for f, t in types.items())))


def load_columns(uri: str, types: dict[int, PrimitiveType], *, blooms: BloomMode) -> ColumnarIndex | None:
    """One zonemap file as columns (Bloom filters only when asked, decoded or as stored), from memory when unchanged since
    it was held; an empty index when the file is gone (a consolidation removed it after it was
    listed: the master holds its entries); None when it is unreadable (logged)."""
    import pyarrow as pa

    key = _key(uri, types, blooms)
    if key is None:
        return empty_index()
    cached = HOT.get(key)
    if cached is not None:
        return cached
    wanted = None if blooms else _WITHOUT_BLOOMS
    try:
        data, stored = _split_blooms(read_file(uri, wanted), blooms)
        index = dataclasses.replace(from_stored(data, types), stored_blooms=stored)
    except (*_READ_ERRORS, pa.ArrowInvalid) as e:
        _unreadable(uri, e)
        return None
    HOT.put(key, index, index.nbytes)
    return index


def load_many(uris: list[str], types: dict[int, PrimitiveType], *, blooms: BloomMode) -> list[ColumnarIndex | None]:
    """load_columns of each file, in order. The files not held are read side by side and decoded
    together, one decode of all their rows instead of one per file (a cold lookup meets every micro
    file since the last consolidation), then held one by one as load_columns holds them."""
    import pyarrow as pa

    found: list[ColumnarIndex | None] = [None] * len(uris)
    missing = []
    for i, uri in enumerate(uris):
        key = _key(uri, types, blooms)
        if key is None:  # gone: a consolidation removed it after it was listed, as in load_columns
            found[i] = empty_index()
            continue
        cached = HOT.get(key)
        if cached is not None:
            found[i] = cached
        else:
            missing.append((i, uri, key))
    if len(missing) < 2:
        for i, uri, _ in missing:
            found[i] = load_columns(uri, types, blooms=blooms)
        return found
    wanted = None if blooms else _WITHOUT_BLOOMS
    read = list(_readers().map(lambda m: _read_or_error(m[1], wanted), missing))
    alike: dict[str, list[tuple[int, tuple, pa.Table]]] = {}
    for (i, uri, key), data in zip(missing, read, strict=True):
        if isinstance(data, Exception):
            _unreadable(uri, data)
        else:
            data = data.replace_schema_metadata(None)
            alike.setdefault(data.schema.to_string(), []).append((i, key, data))
    for members in alike.values():
        try:
            # The statistics decoded together; with STORED each file's filters kept as read.
            tables, stored = zip(*(_split_blooms(data, blooms) for _, _, data in members), strict=True)
            decoded = from_stored(pa.concat_tables(tables), types)
        except (*_READ_ERRORS, pa.ArrowInvalid):  # decode them one by one: only a malformed file is lost
            for i, _, _ in members:
                found[i] = load_columns(uris[i], types, blooms=blooms)
            continue
        start = 0
        for (i, key, data), own in zip(members, stored, strict=True):
            part = dataclasses.replace(_known_only(decoded.take(np.arange(start, start + data.num_rows))),
                                       stored_blooms=own)
            start += data.num_rows
            HOT.put(key, part, part.nbytes)
            found[i] = part
    return found


def _split_blooms(data: pa.Table, blooms: BloomMode) -> tuple[pa.Table, pa.Array | None]:
    """(the rows to decode, the Bloom filters kept as stored): with STORED the filters come out of the
    rows and are kept as read; otherwise the rows stay whole (from_stored decodes any filters in them)."""
    if blooms != STORED or "blooms" not in data.column_names:
        return data, None
    return data.drop_columns(["blooms"]), data.column("blooms").combine_chunks()


def _readers() -> ThreadPoolExecutor:
    """The process's zonemap readers, started once rather than at every cold lookup (docs/benchmarks.md,
    *Cold runs*). Started again in a forked child, where the parent's threads do not exist."""
    global _POOL
    if _POOL is None or _POOL[0] != os.getpid():
        _POOL = (os.getpid(), ThreadPoolExecutor(max_workers=_READERS, thread_name_prefix="lakeops-zonemap-read"))
    return _POOL[1]


_POOL: tuple[int, ThreadPoolExecutor] | None = None


def _unreadable(uri: str, error: Exception) -> None:
    log.warning("zonemap file %s is unreadable (%s); its files will be read in full until it is rebuilt", uri, error)


def _known_only(index: ColumnarIndex) -> ColumnarIndex:
    """Without the fields none of its entries has statistics or a filter for (they came from other files
    decoded with it): what load_columns gives the file alone (an absent field and an all-null one prune alike)."""
    stats = {f: st for f, st in index.stats.items()
             if min(st.lower.null_count, st.upper.null_count, st.null_count.null_count) < len(index)}
    blooms = {f: b for f, b in index.blooms.items() if b.bits.null_count < len(index)}
    return dataclasses.replace(index, stats=stats, blooms=blooms)


def _read_or_error(uri: str, columns: list[str] | None) -> pa.Table | Exception:
    import pyarrow as pa

    try:
        return read_file(uri, columns)
    except (*_READ_ERRORS, pa.ArrowInvalid) as e:
        return e


def master_blooms(uri: str, rows: np.ndarray, metadata: pq.FileMetaData | None = None) -> dict[int, Blooms] | None:
    """The Bloom filters of the given master rows (global row numbers, ascending), reading only the
    row groups that hold them; None when the master cannot be read. metadata: its footer, when already parsed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not len(rows):
        return {}
    fs, path = _filesystem(uri)
    try:
        with fs.open_input_file(path) as stream:
            parquet = pq.ParquetFile(stream, metadata=metadata)
            starts = np.cumsum([0] + [parquet.metadata.row_group(g).num_rows for g in range(parquet.num_row_groups)])
            groups = np.unique(np.searchsorted(starts, rows, side="right") - 1)
            data = parquet.read_row_groups([int(g) for g in groups], columns=["blooms"])
    except (*_READ_ERRORS, pa.ArrowInvalid) as e:
        log.warning("zonemap master %s is unreadable (%s); its files will be read in full until it is rebuilt", uri, e)
        return None
    offsets = np.concatenate([[0], np.cumsum([starts[g + 1] - starts[g] for g in groups])])
    local = np.empty(len(rows), np.int64)
    group_of = np.searchsorted(starts, rows, side="right") - 1
    position = np.searchsorted(groups, group_of)
    local[:] = offsets[position] + (rows - starts[group_of])
    return blooms_from_stored(data.column("blooms").combine_chunks().take(pa.array(local)), len(rows))


def load_index(table: Table) -> tuple[dict[str, ZonemapEntry], list[str]]:
    """Every entry of the current index (master, hourly, micro), read from disk: for inspection and tests."""
    files = index_files(table.location())
    entries, unreadable = read_files(([files.master] if files.master else []) + files.hourly + files.micro)
    return {e.file_path: e for e in entries}, unreadable
