"""Can a file hold a row matching a predicate? Answered from its zonemap entry, conservatively:
False only when the statistics prove that no row matches; anything unknown answers True.

Predicates are pyiceberg expressions. NOT is pushed down to the leaves first (rewrite_not), so a
leaf is decided on its own and AND/OR combine the answers. A column without statistics (added
after the entry was written, or not indexed) never prunes. A conjunction that names a Bloom column's
values over a bounded time range also probes the entry's hour-pair filter (lakeops.zonemap.hour_pairs).
"""

from __future__ import annotations

import struct
from typing import Any

from pyiceberg.expressions import BooleanExpression
from pyiceberg.expressions.literals import Literal
from pyiceberg.expressions.visitors import BoundBooleanExpressionVisitor, bind, rewrite_not, visit
from pyiceberg.schema import Schema
from pyiceberg.types import FloatType

from lakeops.zonemap.bloom import BLOOM_TYPES
from lakeops.zonemap.entry import ColumnStats, ZonemapEntry
from lakeops.zonemap.hour_pairs import hour_field_ids, lookup_keys


def may_match(entry: ZonemapEntry, predicate: BooleanExpression, schema: Schema) -> bool:
    bound = bind(schema, rewrite_not(predicate), case_sensitive=True)
    if not visit(bound, _MayMatch(entry)):
        return False
    for field_id in hour_field_ids(entry.blooms, schema):
        pairs = entry.blooms[field_id]
        for looked_up, keys in lookup_keys(bound, field_id):
            if looked_up in entry.blooms and not any(pairs.might_contain(key) for key in keys):
                return False
    return True


def _value(term: Any, literal: Any) -> Any:
    """The literal as the column compares it: a float column holds 32-bit values and readers (Arrow,
    Spark) compare against the literal rounded to 32 bits, so pruning must too."""
    value = getattr(literal, "value", literal)
    if isinstance(term.ref().field.field_type, FloatType) and isinstance(value, float):
        return struct.unpack("<f", struct.pack("<f", value))[0]
    return value


def _signed_zero(value: Any) -> bool:
    """-0.0 and 0.0 are equal to Python and to Arrow's comparisons, but Arrow's is_in tells them
    apart (it hashes the bits): a file whose values are all zero may still match NOT IN (0.0)."""
    return isinstance(value, float) and value == 0.0


class _MayMatch(BoundBooleanExpressionVisitor[bool]):
    def __init__(self, entry: ZonemapEntry) -> None:
        self.entry = entry

    def _stats(self, term: Any) -> ColumnStats | None:
        return self.entry.columns.get(term.ref().field.field_id)

    def _all_null(self, stats: ColumnStats) -> bool:
        return stats.null_count is not None and stats.null_count >= self.entry.record_count

    def _bounds(self, term: Any) -> tuple[Any, Any] | None:
        """(lower, upper) when both are known; None means: cannot prune on range."""
        stats = self._stats(term)
        if stats is None or stats.lower is None or stats.upper is None:
            return None
        return stats.lower, stats.upper

    def _no_values(self, term: Any) -> bool:
        stats = self._stats(term)
        return stats is not None and self._all_null(stats)

    def _bloom_excludes(self, term: Any, values: set[Any]) -> bool:
        field = term.ref().field
        if not isinstance(field.field_type, BLOOM_TYPES):
            return False  # a filter hashes string forms: only types whose values hash alike everywhere
        bloom = self.entry.blooms.get(field.field_id)
        return bloom is not None and not any(bloom.might_contain(v) for v in values)

    def visit_true(self) -> bool:
        return True

    def visit_false(self) -> bool:
        return False

    def visit_not(self, child_result: bool) -> bool:
        return True  # rewrite_not removed every NOT; never prune on one

    def visit_and(self, left_result: bool, right_result: bool) -> bool:
        return left_result and right_result

    def visit_or(self, left_result: bool, right_result: bool) -> bool:
        return left_result or right_result

    def visit_is_null(self, term: Any) -> bool:
        stats = self._stats(term)
        return stats is None or stats.null_count is None or stats.null_count > 0

    def visit_not_null(self, term: Any) -> bool:
        return not self._no_values(term)

    def visit_is_nan(self, term: Any) -> bool:
        return True

    def visit_not_nan(self, term: Any) -> bool:
        return True

    def _compare(self, term: Any, test: Any) -> bool:
        if self._no_values(term):
            return False
        bounds = self._bounds(term)
        return bounds is None or test(*bounds)

    def visit_less_than(self, term: Any, literal: Literal[Any]) -> bool:
        value = _value(term, literal)
        return self._compare(term, lambda lo, hi: lo < value)

    def visit_less_than_or_equal(self, term: Any, literal: Literal[Any]) -> bool:
        value = _value(term, literal)
        return self._compare(term, lambda lo, hi: lo <= value)

    def visit_greater_than(self, term: Any, literal: Literal[Any]) -> bool:
        value = _value(term, literal)
        return self._compare(term, lambda lo, hi: hi > value)

    def visit_greater_than_or_equal(self, term: Any, literal: Literal[Any]) -> bool:
        value = _value(term, literal)
        return self._compare(term, lambda lo, hi: hi >= value)

    def visit_equal(self, term: Any, literal: Literal[Any]) -> bool:
        return self.visit_in(term, {literal.value})

    def visit_in(self, term: Any, literals: set[Any]) -> bool:
        values = {_value(term, v) for v in literals}
        if not self._compare(term, lambda lo, hi: any(lo <= v <= hi for v in values)):
            return False
        return not self._bloom_excludes(term, values)

    def visit_not_equal(self, term: Any, literal: Literal[Any]) -> bool:
        return self.visit_not_in(term, {literal.value})

    def visit_not_in(self, term: Any, literals: set[Any]) -> bool:
        values = {_value(term, v) for v in literals}
        # pyiceberg's Arrow filter (NOT is_in) keeps null rows where SQL drops them: a file that may
        # hold a null may match. Otherwise only a file whose every value is one excluded value cannot.
        stats = self._stats(term)
        if stats is None or stats.null_count is None or stats.null_count > 0:
            return True
        return self._compare(term, lambda lo, hi: not (lo == hi and lo in values and not _signed_zero(lo)))

    def visit_starts_with(self, term: Any, literal: Literal[Any]) -> bool:
        prefix = literal.value
        return self._compare(term, lambda lo, hi: lo[: len(prefix)] <= prefix <= hi[: len(prefix)])

    def visit_not_starts_with(self, term: Any, literal: Literal[Any]) -> bool:
        prefix = literal.value
        return self._compare(term, lambda lo, hi: not (lo.startswith(prefix) and hi.startswith(prefix)))
