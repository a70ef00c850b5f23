"""The daily master read by row group: a lookup reads only the row groups that can match.

The master is written in row groups (`write_master`) with, in its Parquet footer, one summary row
per row group in the zonemap encoding (lakeops.zonemap.store.SCHEMA): the group's record count
and, per column, the least lower bound and greatest upper bound of its entries and their summed
null count. Evaluated with the entries' own rules (lakeops.zonemap.evaluate), a summary row that
cannot match proves that no entry of its group can: a group's bounds hold every bound of its
entries, and it is all null only when every entry is. A bound an entry lacks (unknown, NaN) leaves
the group's bound unknown, so it never prunes; entries whose column is all null are left out of
the bounds (no comparison keeps them). So a lookup reads the footer (held, small) and then only
its candidate groups, which the hot cache holds one by one under the memory bound.

The file_path column's own Parquet statistics bound the paths of each group: counting the master
rows a later snapshot removed reads just the groups whose path range holds one.

A master written before the summary existed (or with one that does not fit its row groups) has
`summary` None: it is read whole, as then.
"""

from __future__ import annotations

import bisect
import json
import logging
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyiceberg.conversions import to_bytes

from lakeops.atomic import atomic_output
from lakeops.zonemap.columns import ColumnarIndex, concat, empty_index, from_stored
from lakeops.zonemap.hot import HOT
from lakeops.zonemap.store import SCHEMA, TYPES, _filesystem

if TYPE_CHECKING:
    from pyiceberg.expressions import BooleanExpression
    from pyiceberg.schema import Schema
    from pyiceberg.types import PrimitiveType

log = logging.getLogger(__name__)

SUMMARY_KEY = b"lakeops.zonemap.row_groups"
"""Parquet footer key of the row-group summary (an Arrow IPC stream of store.SCHEMA rows)."""
ROWS_KEY = b"lakeops.zonemap.row_group_rows"
"""Parquet footer key of the entries per row group the summary was made for (JSON list)."""
STATISTICS = ["file_path", "record_count", "file_size", "partition", "columns"]
"""The master's columns a lookup decodes (the Bloom filters are read apart, for survivors only)."""
_READ_ERRORS = (OSError, ValueError, KeyError, pa.ArrowInvalid)


def _stored_types(data: pa.Table) -> dict[int, PrimitiveType]:
    """Field id -> the type its bounds are encoded in, for the fields written in one type only."""
    if not data.num_rows:
        return {}
    flat = data.column("columns").combine_chunks().flatten()
    pairs = pa.table({"f": flat.field("field_id"), "t": flat.field("type")}).group_by(["f", "t"]).aggregate([])
    found: dict[int, list[str]] = {}
    for f, t in zip(pairs.column("f").to_pylist(), pairs.column("t").to_pylist(), strict=True):
        found.setdefault(f, []).append(t)
    return {f: TYPES[ts[0]] for f, ts in found.items() if len(ts) == 1 and ts[0] in TYPES}


def _bound(values: pa.Array, least: bool) -> Any:
    """The least (or greatest) of values; None when one is unknown (null, NaN) or there are none."""
    if not len(values) or values.null_count:
        return None
    if pa.types.is_floating(values.type) and pc.any(pc.is_nan(values)).as_py():
        return None
    found = pc.min_max(values)
    return found["min" if least else "max"].as_py()


def summarize(data: pa.Table, row_group_size: int) -> pa.Table:
    """One summary row (store.SCHEMA) per row group of data written in groups of row_group_size rows."""
    types = _stored_types(data)
    index = from_stored(data.select(STATISTICS), types)
    rows = []
    for g in range(math.ceil(data.num_rows / row_group_size)):
        lo, n = g * row_group_size, min(row_group_size, data.num_rows - g * row_group_size)
        records = index.record_count[lo:lo + n]
        columns = []
        for field_id, stats in index.stats.items():
            nulls = stats.null_count.slice(lo, n)
            counts = nulls.fill_null(-1).to_numpy(zero_copy_only=False)
            relevant = pa.array(~((counts >= 0) & (counts >= records)))
            lower = _bound(stats.lower.slice(lo, n).filter(relevant), least=True)
            upper = _bound(stats.upper.slice(lo, n).filter(relevant), least=False)
            if lower is None or upper is None:
                lower = upper = None
            t = types[field_id]
            # Summed only when every count is known and consistent, so the group is all null (or holds
            # a null) exactly when every (or some) entry is.
            consistent = not nulls.null_count and bool(((counts >= 0) & (counts <= records)).all())
            columns.append({"field_id": field_id, "type": str(t), "null_count": int(counts.sum()) if consistent else None,
                            "lower": None if lower is None else to_bytes(t, lower),
                            "upper": None if upper is None else to_bytes(t, upper)})
        rows.append({"file_path": f"row group {g}", "snapshot_id": 0, "record_count": int(records.sum()), "file_size": 0,
                     "partition": "", "columns": columns, "blooms": []})
    return pa.Table.from_pylist(rows, schema=SCHEMA)


def write_master(uri: str, data: pa.Table, row_group_size: int) -> str:
    """Write a master (rows in store.SCHEMA, sorted by partition) atomically, in row groups of
    row_group_size rows, with their summary in the footer."""
    data = data.cast(SCHEMA) if data.schema != SCHEMA else data
    summary = summarize(data, row_group_size)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, summary.schema) as ipc:
        ipc.write_table(summary)
    with atomic_output(*_filesystem(uri)) as out:
        with pq.ParquetWriter(out, SCHEMA) as writer:
            for g in range(math.ceil(data.num_rows / row_group_size)):
                writer.write_table(data.slice(g * row_group_size, row_group_size), row_group_size=row_group_size)
            sizes = [min(row_group_size, data.num_rows - lo) for lo in range(0, data.num_rows, row_group_size)]
            writer.add_key_value_metadata({SUMMARY_KEY: sink.getvalue().to_pybytes(), ROWS_KEY: json.dumps(sizes).encode()})
    return uri


@dataclass(frozen=True)
class MasterGroups:
    uri: str
    key: tuple
    """The master file as it is now (lakeops.zonemap.index.file_key): row groups are cached under it."""
    starts: np.ndarray
    """First row of each row group, then the row count."""
    summary: ColumnarIndex | None
    """One entry per row group; None: the master has no usable summary (read it whole)."""
    path_bounds: list[tuple[str | None, str | None]]
    """Least and greatest file_path of each row group (None: unknown)."""
    metadata: pq.FileMetaData | None = field(default=None, compare=False)
    """The master's footer as parsed here, row-group summary included: later reads of its row groups open the
    file without parsing it again."""

    @property
    def rows(self) -> int:
        return int(self.starts[-1])

    @property
    def nbytes(self) -> int:
        return (self.summary.nbytes if self.summary is not None else 0) + self.starts.nbytes + \
            sum(len(a or "") + len(b or "") for a, b in self.path_bounds) + \
            (self.metadata.serialized_size if self.metadata is not None else 0)


def _types_key(types: dict[int, PrimitiveType]) -> tuple:
    return tuple(sorted((f, str(t)) for f, t in types.items()))


def master_groups(uri: str, key: tuple, types: dict[int, PrimitiveType]) -> MasterGroups | None:
    """The master's row groups from its footer (held while unchanged); None when it cannot be read."""
    cache_key = ("groups", *key, _types_key(types))
    cached = HOT.get(cache_key)
    if cached is not None:
        return cached
    fs, path = _filesystem(uri)
    try:
        with fs.open_input_file(path) as stream:
            meta = pq.ParquetFile(stream).metadata
    except _READ_ERRORS as e:
        log.warning("zonemap master %s is unreadable (%s); its files will be read in full until it is rebuilt", uri, e)
        return None
    sizes = [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]
    starts = np.cumsum([0, *sizes]).astype(np.int64)
    path_column = next((i for i in range(meta.num_columns) if meta.schema.column(i).path == "file_path"), None)
    bounds: list[tuple[str | None, str | None]] = []
    for g in range(meta.num_row_groups):
        stats = meta.row_group(g).column(path_column).statistics if path_column is not None else None
        if stats is not None and stats.has_min_max:
            bounds.append((stats.min, stats.max))
        else:
            bounds.append((None, None))
    summary = None
    footer = meta.metadata or {}
    stored = footer.get(SUMMARY_KEY)
    if stored is not None:
        try:
            rows = pa.ipc.open_stream(pa.py_buffer(stored)).read_all()
            if rows.num_rows == meta.num_row_groups and json.loads(footer.get(ROWS_KEY, b"null")) == sizes:
                summary = from_stored(rows, types)
            else:
                log.warning("zonemap master %s: its row-group summary does not fit its row groups; reading it whole", uri)
        except (*_READ_ERRORS, json.JSONDecodeError) as e:
            log.warning("zonemap master %s: its row-group summary is unreadable (%s); reading it whole", uri, e)
    groups = MasterGroups(uri, key, starts, summary, bounds, meta)
    HOT.put(cache_key, groups, groups.nbytes)
    return groups


def candidate_groups(groups: MasterGroups, predicate: BooleanExpression, schema: Schema) -> np.ndarray:
    """Row groups whose summary may match (ascending)."""
    from lakeops.zonemap.evaluate import may_match_all

    assert groups.summary is not None
    if not len(groups.summary):
        return np.zeros(0, np.int64)
    return np.nonzero(may_match_all(groups.summary, predicate, schema, use_blooms=False))[0]


def read_groups(groups: MasterGroups, which: np.ndarray, types: dict[int, PrimitiveType]) -> ColumnarIndex | None:
    """The statistics of the given row groups (ascending) as one index, held group by group in the
    hot cache; None when the master cannot be read."""
    if not len(which):
        return empty_index()
    types_key = _types_key(types)
    parts: dict[int, ColumnarIndex] = {}
    for g in which.tolist():
        found = HOT.get(("group", *groups.key, g, types_key))
        if found is not None:
            parts[g] = found
    missing = [g for g in which.tolist() if g not in parts]
    if missing:
        fs, path = _filesystem(groups.uri)
        try:
            with fs.open_input_file(path) as stream:
                data = pq.ParquetFile(stream, metadata=groups.metadata).read_row_groups(missing, columns=STATISTICS)
            offset = 0
            for g in missing:
                n = int(groups.starts[g + 1] - groups.starts[g])
                part = from_stored(data.slice(offset, n), types)
                offset += n
                parts[g] = part
                HOT.put(("group", *groups.key, g, types_key), part, part.nbytes)
        except _READ_ERRORS as e:
            log.warning("zonemap master %s is unreadable (%s); its files will be read in full until it is rebuilt",
                        groups.uri, e)
            return None
    return concat([parts[g] for g in which.tolist()])


def rows_of(groups: MasterGroups, which: np.ndarray) -> np.ndarray:
    """Global row numbers of the given row groups (ascending), in order."""
    if not len(which):
        return np.zeros(0, np.int64)
    return np.concatenate([np.arange(groups.starts[g], groups.starts[g + 1], dtype=np.int64) for g in which.tolist()])


def count_paths(groups: MasterGroups, paths: set[str]) -> int | None:
    """Master rows whose file_path is in paths, reading only the file_path column of the row groups
    whose path range may hold one; None when the master cannot be read."""
    if not paths:
        return 0
    ordered = sorted(paths)
    which = []
    for g, (least, greatest) in enumerate(groups.path_bounds):
        if least is None or greatest is None:
            which.append(g)
            continue
        at = bisect.bisect_left(ordered, least)
        if at < len(ordered) and ordered[at] <= greatest:
            which.append(g)
    if not which:
        return 0
    fs, path = _filesystem(groups.uri)
    try:
        with fs.open_input_file(path) as stream:
            data = pq.ParquetFile(stream, metadata=groups.metadata).read_row_groups(which, columns=["file_path"])
    except _READ_ERRORS as e:
        log.warning("zonemap master %s is unreadable (%s); its files will be read in full until it is rebuilt", groups.uri, e)
        return None
    return int(pc.sum(pc.is_in(data.column("file_path"), value_set=pa.array(ordered, pa.string()))).as_py() or 0)
