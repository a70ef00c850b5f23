"""Which entries of a columnar index may hold a row matching a predicate: the rules of
lakeops.zonemap.prune (a file is dropped only when its statistics prove no row matches), evaluated
with pyarrow.compute over every entry at once. The answer is a numpy boolean mask.

Bloom filters are probed the same way (hour-pair filters, lakeops.zonemap.hour_pairs, once the
other rules have decided, on the entries they kept): the literal's two murmur3 hashes are computed once, the bit
positions for every entry's filter size and hash count with numpy, and the bits read straight from
the filters' Arrow buffer.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import mmh3
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyiceberg.expressions import BooleanExpression
from pyiceberg.expressions.literals import Literal
from pyiceberg.expressions.visitors import BoundBooleanExpressionVisitor, bind, rewrite_not, visit
from pyiceberg.schema import Schema
from pyiceberg.types import FloatType

from lakeops.zonemap.bloom import BLOOM_TYPES
from lakeops.zonemap.columns import Blooms, ColumnarIndex, Stats
from lakeops.zonemap.hour_pairs import hour_field_ids, lookup_keys


def may_match_all(index: ColumnarIndex, predicate: BooleanExpression, schema: Schema, *,
                  use_blooms: bool = True) -> np.ndarray:
    """Mask over index: True where the entry's file may hold a matching row. use_blooms=False gives
    what min/max statistics alone decide (what Iceberg's own file metrics can do)."""
    bound = bind(schema, rewrite_not(predicate), case_sensitive=True)
    mask = np.array(visit(bound, _MayMatchAll(index, use_blooms)), dtype=bool)
    if use_blooms:
        for field_id in hour_field_ids(index.blooms, schema):
            _probe_pairs(index, index.blooms[field_id], lookup_keys(bound, field_id), mask)
    return mask


def _probe_pairs(index: ColumnarIndex, pairs: Blooms, groups: list[tuple[int, list[str]]], mask: np.ndarray) -> None:
    """Clear mask where an entry's hour-pair filter holds no key of some group (lakeops.zonemap.hour_pairs);
    only the entries still in the mask that have a filter of the group's column of their own are probed."""
    for looked_up, keys in groups:
        own = index.blooms.get(looked_up)
        if own is None:
            continue
        rows = np.nonzero(mask & own.bits.is_valid().to_numpy(zero_copy_only=False))[0]
        if not len(rows):
            continue
        subset = Blooms(pairs.bits.take(pa.array(rows, pa.int64())), pairs.hashes[rows])
        hit = np.zeros(len(rows), bool)
        for key in keys:
            hit |= bloom_contains(subset, key)
        mask[rows] = hit


def _value(term: Any, literal: Any) -> Any:
    """As lakeops.zonemap.prune: a float column compares against the literal rounded to 32 bits."""
    value = getattr(literal, "value", literal)
    if isinstance(term.ref().field.field_type, FloatType) and isinstance(value, float):
        return struct.unpack("<f", struct.pack("<f", value))[0]
    return value


def _mask(array: pa.Array | pa.ChunkedArray, unknown: bool) -> np.ndarray:
    """A boolean Arrow result as numpy, nulls (unknown statistics) read as `unknown`."""
    return pc.fill_null(array, unknown).to_numpy(zero_copy_only=False).astype(bool)


def bloom_contains(blooms: Blooms, value: Any) -> np.ndarray:
    """Per entry: its filter may contain value (True where there is no filter). Bit-for-bit the
    probe of lakeops.zonemap.bloom.BloomFilter.might_contain."""
    bits = blooms.bits
    n = len(bits)
    result = np.ones(n, bool)
    valid = bits.is_valid().to_numpy(zero_copy_only=False) & (blooms.hashes > 0)
    if not n or not valid.any():
        return result
    offsets = np.frombuffer(bits.buffers()[1], np.int32)[bits.offset: bits.offset + n + 1].astype(np.int64)
    data = np.frombuffer(bits.buffers()[2], np.uint8)
    rows = np.nonzero(valid)[0]
    size = (offsets[rows + 1] - offsets[rows]) * 8
    rows, size = rows[size > 0], size[size > 0]
    h1, h2 = mmh3.hash64(str(value).encode(), signed=False)
    hashes = blooms.hashes[rows]
    start = offsets[rows]
    # (h1 + i*h2) % size exactly as the filter computed it with Python ints, reduced per distinct size
    # first so numpy's int64 never overflows: ((h1 % size) + (i * (h2 % size)) % size) % size.
    sizes, which = np.unique(size, return_inverse=True)
    a = np.array([h1 % int(s) for s in sizes], dtype=np.int64)[which]
    b = np.array([h2 % int(s) for s in sizes], dtype=np.int64)[which]
    hit = np.ones(len(rows), bool)
    for i in range(int(hashes.max(initial=0))):
        active = i < hashes
        position = (a + (i * b) % size) % size
        byte = data[start + (position >> 3)]
        hit &= ~active | ((byte >> (position & 7)) & 1).astype(bool)
    result[rows] = hit
    return result


def _between(lo: pa.Array, hi: pa.Array, value: pa.Scalar) -> pa.Array:
    return pc.and_(pc.less_equal(lo, value), pc.less_equal(value, hi))


class _MayMatchAll(BoundBooleanExpressionVisitor[np.ndarray]):
    def __init__(self, index: ColumnarIndex, use_blooms: bool) -> None:
        self.index = index
        self.use_blooms = use_blooms
        self.n = len(index)

    def _all(self, value: bool) -> np.ndarray:
        return np.full(self.n, value, bool)

    def _stats(self, term: Any) -> Stats | None:
        return self.index.stats.get(term.ref().field.field_id)

    def _all_null(self, stats: Stats) -> np.ndarray:
        counts = stats.null_count.fill_null(-1).to_numpy(zero_copy_only=False)
        return (counts >= 0) & (counts >= self.index.record_count)

    def _compare(self, term: Any, test: Callable[[pa.Array, pa.Array], pa.Array]) -> np.ndarray:
        stats = self._stats(term)
        if stats is None:
            return self._all(True)
        known = pc.and_(stats.lower.is_valid(), stats.upper.is_valid())
        in_range = _mask(test(stats.lower, stats.upper), True)
        return ~self._all_null(stats) & (~_mask(known, False) | in_range)

    def _scalar(self, stats: Stats, value: Any) -> pa.Scalar:
        return pa.scalar(value).cast(stats.lower.type) if not isinstance(value, str) else pa.scalar(value, stats.lower.type)

    def visit_true(self) -> np.ndarray:
        return self._all(True)

    def visit_false(self) -> np.ndarray:
        return self._all(False)

    def visit_not(self, child_result: np.ndarray) -> np.ndarray:
        return self._all(True)

    def visit_and(self, left_result: np.ndarray, right_result: np.ndarray) -> np.ndarray:
        return left_result & right_result

    def visit_or(self, left_result: np.ndarray, right_result: np.ndarray) -> np.ndarray:
        return left_result | right_result

    def visit_is_null(self, term: Any) -> np.ndarray:
        stats = self._stats(term)
        if stats is None:
            return self._all(True)
        counts = stats.null_count.fill_null(-1).to_numpy(zero_copy_only=False)
        return (counts < 0) | (counts > 0)

    def visit_not_null(self, term: Any) -> np.ndarray:
        stats = self._stats(term)
        return self._all(True) if stats is None else ~self._all_null(stats)

    def visit_is_nan(self, term: Any) -> np.ndarray:
        return self._all(True)

    def visit_not_nan(self, term: Any) -> np.ndarray:
        return self._all(True)

    def _against(self, term: Any, literal: Any, op: Callable[[pa.Array, pa.Array, pa.Scalar], pa.Array]) -> np.ndarray:
        stats = self._stats(term)
        if stats is None:
            return self._all(True)
        scalar = self._scalar(stats, _value(term, literal))
        return self._compare(term, lambda lo, hi: op(lo, hi, scalar))

    def visit_less_than(self, term: Any, literal: Literal[Any]) -> np.ndarray:
        return self._against(term, literal, lambda lo, hi, v: pc.less(lo, v))

    def visit_less_than_or_equal(self, term: Any, literal: Literal[Any]) -> np.ndarray:
        return self._against(term, literal, lambda lo, hi, v: pc.less_equal(lo, v))

    def visit_greater_than(self, term: Any, literal: Literal[Any]) -> np.ndarray:
        return self._against(term, literal, lambda lo, hi, v: pc.greater(hi, v))

    def visit_greater_than_or_equal(self, term: Any, literal: Literal[Any]) -> np.ndarray:
        return self._against(term, literal, lambda lo, hi, v: pc.greater_equal(hi, v))

    def visit_equal(self, term: Any, literal: Literal[Any]) -> np.ndarray:
        return self.visit_in(term, {literal.value})

    def visit_in(self, term: Any, literals: set[Any]) -> np.ndarray:
        stats = self._stats(term)
        if stats is None:
            return self._all(True)
        values = {_value(term, v) for v in literals}
        result = self._all(False)
        for v in values:
            result |= self._against(term, v, _between)
        field = term.ref().field
        blooms = self.index.blooms.get(field.field_id)
        if self.use_blooms and blooms is not None and isinstance(field.field_type, BLOOM_TYPES):
            contained = self._all(False)
            for v in values:
                contained |= bloom_contains(blooms, v)
            result &= contained
        return result

    def visit_not_equal(self, term: Any, literal: Literal[Any]) -> np.ndarray:
        return self.visit_not_in(term, {literal.value})

    def visit_not_in(self, term: Any, literals: set[Any]) -> np.ndarray:
        stats = self._stats(term)
        if stats is None:
            return self._all(True)
        counts = stats.null_count.fill_null(-1).to_numpy(zero_copy_only=False)
        may_hold_null = (counts < 0) | (counts > 0)
        values = [v for v in {_value(term, v) for v in literals} if not (isinstance(v, float) and v == 0.0)]
        if not values:
            return self._all(True)
        excluded = pa.array(values).cast(stats.lower.type) if not isinstance(values[0], str) else pa.array(values, pa.string())
        single = pc.and_(pc.equal(stats.lower, stats.upper), pc.is_in(stats.lower, value_set=excluded))
        return may_hold_null | self._compare(term, lambda lo, hi: pc.invert(single))

    def visit_starts_with(self, term: Any, literal: Literal[Any]) -> np.ndarray:
        prefix = literal.value
        n = len(prefix)
        return self._compare(term, lambda lo, hi: pc.and_(
            pc.less_equal(pc.utf8_slice_codeunits(lo, 0, n), prefix), pc.less_equal(prefix, pc.utf8_slice_codeunits(hi, 0, n))))

    def visit_not_starts_with(self, term: Any, literal: Literal[Any]) -> np.ndarray:
        prefix = literal.value
        return self._compare(term, lambda lo, hi: pc.invert(pc.and_(pc.starts_with(lo, prefix), pc.starts_with(hi, prefix))))
