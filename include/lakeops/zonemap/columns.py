"""The index as columns: zonemap files (lakeops.zonemap.store's layout: one row per data file, its
statistics a list of binary-encoded bounds) decoded once into one Arrow array per statistic, so a
predicate is evaluated over every entry at once (lakeops.zonemap.evaluate) instead of one Python
object per file.

Bounds are decoded to the column's *current* type: values written as int or float before a
widening to long or double are cast up, as a reader of the old files would. Timestamps and dates
stay in Iceberg's internal form (microseconds, days), the same as a bound pyiceberg literal. A
column an entry lacks (not indexed then, or added later) is null there and never prunes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyiceberg.types import (
    BooleanType,
    DateType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    PrimitiveType,
    StringType,
    TimestampType,
    TimestamptzType,
)

# Stored type name -> (bytes per value, numpy dtype) for the fixed-width encodings of Iceberg's
# single-value serialization (little-endian); strings are UTF-8 bytes.
_FIXED = {"boolean": (1, "<u1"), "int": (4, "<i4"), "date": (4, "<i4"), "long": (8, "<i8"), "timestamp": (8, "<i8"),
          "timestamptz": (8, "<i8"), "float": (4, "<f4"), "double": (8, "<f8")}


def arrow_type(t: PrimitiveType) -> pa.DataType | None:
    """How a column's bounds are held: the literal's internal form; None: not kept."""
    if isinstance(t, BooleanType):
        return pa.bool_()
    if isinstance(t, (IntegerType, LongType, DateType, TimestampType, TimestamptzType)):
        return pa.int64()
    if isinstance(t, (FloatType, DoubleType)):
        return pa.float64()
    if isinstance(t, StringType):
        return pa.string()
    return None


@dataclass(frozen=True)
class Stats:
    lower: pa.Array
    upper: pa.Array
    null_count: pa.Array
    """int64; null where unknown."""


@dataclass(frozen=True)
class Blooms:
    bits: pa.BinaryArray
    """One filter per entry; null where the entry has none."""
    hashes: np.ndarray
    """int64 hash count per entry (0 where there is no filter)."""


@dataclass(frozen=True)
class ColumnarIndex:
    paths: pa.Array
    record_count: np.ndarray
    file_size: np.ndarray
    partition: pa.Array
    stats: dict[int, Stats] = field(default_factory=dict)
    blooms: dict[int, Blooms] = field(default_factory=dict)
    stored_blooms: pa.Array | None = None
    """The Bloom filters as the file stores them (one list per entry), not decoded: a lookup decodes
    those of the entries its statistics keep (blooms_of). take drops them, as does concat of several parts."""

    def __len__(self) -> int:
        return len(self.paths)

    @property
    def nbytes(self) -> int:
        """Arrow and numpy buffer sizes: what holding this index costs in memory."""
        total = self.paths.nbytes + self.partition.nbytes + self.record_count.nbytes + self.file_size.nbytes
        total += sum(s.lower.nbytes + s.upper.nbytes + s.null_count.nbytes for s in self.stats.values())
        total += self.stored_blooms.nbytes if self.stored_blooms is not None else 0
        return total + sum(b.bits.nbytes + b.hashes.nbytes for b in self.blooms.values())

    def take(self, rows: np.ndarray) -> ColumnarIndex:
        indices = pa.array(rows, pa.int64())
        return ColumnarIndex(
            self.paths.take(indices), self.record_count[rows], self.file_size[rows], self.partition.take(indices),
            {f: Stats(s.lower.take(indices), s.upper.take(indices), s.null_count.take(indices)) for f, s in self.stats.items()},
            {f: Blooms(b.bits.take(indices), b.hashes[rows]) for f, b in self.blooms.items()})


def empty_index() -> ColumnarIndex:
    return ColumnarIndex(pa.array([], pa.string()), np.zeros(0, np.int64), np.zeros(0, np.int64), pa.array([], pa.string()))


def _decode(values: pa.Array, type_name: str, target: pa.DataType) -> pa.Array:
    """Binary single-value encodings of one stored type -> target; a malformed value decodes as null."""
    values = values.cast(pa.binary()) if values.type != pa.binary() else values
    if type_name == "string":
        return values.cast(pa.string()).cast(target) if target == pa.string() else pa.nulls(len(values), target)
    width, dtype = _FIXED[type_name]
    n = len(values)
    valid = values.is_valid().to_numpy(zero_copy_only=False)
    out = np.zeros(n, dtype=np.dtype(dtype))
    data_buffer = values.buffers()[2]
    if n and data_buffer is not None:
        offsets = np.frombuffer(values.buffers()[1], np.int32)[values.offset: values.offset + n + 1]
        valid &= np.diff(offsets) == width
        data = np.frombuffer(data_buffer, np.uint8)
        starts = offsets[:-1][valid]
        out[valid] = data[starts[:, None] + np.arange(width)].reshape(-1).view(dtype)
    else:
        valid[:] = False
    decoded = pa.array(out, mask=~valid)
    if type_name == "boolean":
        decoded = pc.not_equal(decoded, 0)
    return decoded.cast(target) if decoded.type != target else decoded


def from_stored(data: pa.Table, types: dict[int, PrimitiveType]) -> ColumnarIndex:
    """Decode zonemap file rows (lakeops.zonemap.store.SCHEMA) into columns, for the fields in types
    (field id -> current type). Blooms are decoded when the rows carry them."""
    n = data.num_rows
    paths = data.column("file_path").combine_chunks()
    record_count = data.column("record_count").to_numpy().astype(np.int64)
    file_size = (data.column("file_size").to_numpy().astype(np.int64) if "file_size" in data.column_names
                 else np.zeros(n, np.int64))
    partition = (data.column("partition").combine_chunks() if "partition" in data.column_names
                 else pa.nulls(n, pa.string()))
    stats: dict[int, Stats] = {}
    if "columns" in data.column_names and n:
        lists = data.column("columns").combine_chunks()
        parents = pc.list_parent_indices(lists).to_numpy()
        flat = lists.flatten()
        field_ids = flat.field("field_id")
        stored_types = flat.field("type")
        for field_id, current in types.items():
            target = arrow_type(current)
            if target is None:
                continue
            lower = pa.nulls(n, target)
            upper = pa.nulls(n, target)
            nulls = np.full(n, -1, np.int64)
            found = False
            of_field = pc.equal(field_ids, field_id)
            for type_name in pc.unique(stored_types.filter(of_field)).to_pylist():
                if type_name not in _FIXED and type_name != "string":
                    continue
                rows = np.nonzero(pc.and_(of_field, pc.equal(stored_types, type_name)).to_numpy(zero_copy_only=False))[0]
                at = parents[rows]
                picked = flat.take(pa.array(rows))
                lower = _scatter(lower, at, _decode(picked.field("lower"), type_name, target))
                upper = _scatter(upper, at, _decode(picked.field("upper"), type_name, target))
                nulls[at] = picked.field("null_count").fill_null(-1).to_numpy(zero_copy_only=False)
                found = True
            if found:
                stats[field_id] = Stats(lower, upper, pa.array(nulls, mask=nulls < 0))
    blooms = blooms_from_stored(data.column("blooms").combine_chunks(), n) if "blooms" in data.column_names else {}
    return ColumnarIndex(paths, record_count, file_size, partition, stats, blooms)


def blooms_from_stored(lists: pa.Array, n: int) -> dict[int, Blooms]:
    """The stored blooms column (one list of filters per entry) -> one Blooms per field id."""
    if not n:
        return {}
    parents = pc.list_parent_indices(lists).to_numpy()
    flat = lists.flatten()
    field_ids = flat.field("field_id").to_numpy(zero_copy_only=False)
    blooms = {}
    for field_id in set(field_ids.tolist()):
        rows = np.nonzero(field_ids == field_id)[0]
        at = parents[rows]
        picked = flat.take(pa.array(rows))
        hashes = np.zeros(n, np.int64)
        hashes[at] = picked.field("hashes").to_numpy(zero_copy_only=False)
        blooms[int(field_id)] = Blooms(_scatter(pa.nulls(n, pa.binary()), at, picked.field("bits")), hashes)
    return blooms


def blooms_of(parts: list[pa.Array | None], part: np.ndarray, local: np.ndarray) -> dict[int, Blooms]:
    """The decoded Bloom filters of the entries (part[i], local[i]), in that order, from each part's
    stored filters (None: a part without any, whose entries then have none). Only those entries are
    copied and decoded, not the parts whole; each part is decoded alone, so parts written with other
    layouts never meet in one array."""
    n = len(part)
    bits: dict[int, pa.Array] = {}
    hashes: dict[int, np.ndarray] = {}
    for p in np.unique(part).tolist():
        stored = parts[p]
        if stored is None:
            continue
        mine = np.nonzero(part == p)[0]
        for field_id, found in blooms_from_stored(stored.take(pa.array(local[mine], pa.int64())), len(mine)).items():
            bits[field_id] = _scatter(bits.get(field_id, pa.nulls(n, pa.binary())), mine, found.bits)
            hashes.setdefault(field_id, np.zeros(n, np.int64))[mine] = found.hashes
    return {f: Blooms(bits[f], hashes[f]) for f in bits}


def _scatter(base: pa.Array, at: np.ndarray, values: pa.Array) -> pa.Array:
    """base with base[at[i]] = values[i] (the other positions kept)."""
    values = values.cast(base.type)
    if len(at) == len(base) and np.array_equal(at, np.arange(len(base))):
        return values
    order = np.argsort(at, kind="stable")
    mask = np.zeros(len(base), bool)
    mask[at] = True
    return pc.replace_with_mask(base, pa.array(mask), values.take(pa.array(order)))


def concat(parts: list[ColumnarIndex]) -> ColumnarIndex:
    """One index of several; a statistic or filter some parts lack is null (never prunes) there."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return empty_index()
    if len(parts) == 1:
        return parts[0]
    stats = {}
    for field_id in {f for p in parts for f in p.stats}:
        target = next(p.stats[field_id].lower.type for p in parts if field_id in p.stats)
        pieces = [p.stats.get(field_id) or Stats(pa.nulls(len(p), target), pa.nulls(len(p), target),
                                                 pa.nulls(len(p), pa.int64())) for p in parts]
        stats[field_id] = Stats(pa.concat_arrays([s.lower.cast(target) for s in pieces]),
                                pa.concat_arrays([s.upper.cast(target) for s in pieces]),
                                pa.concat_arrays([s.null_count for s in pieces]))
    blooms = {}
    for field_id in {f for p in parts for f in p.blooms}:
        pieces_b = [p.blooms.get(field_id) or Blooms(pa.nulls(len(p), pa.binary()), np.zeros(len(p), np.int64))
                    for p in parts]
        blooms[field_id] = Blooms(pa.concat_arrays([b.bits for b in pieces_b]), np.concatenate([b.hashes for b in pieces_b]))
    return ColumnarIndex(pa.concat_arrays([p.paths for p in parts]), np.concatenate([p.record_count for p in parts]),
                         np.concatenate([p.file_size for p in parts]),
                         pa.concat_arrays([p.partition.cast(pa.string()) for p in parts]), stats, blooms)
