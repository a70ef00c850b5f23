"""Hour pairs: a file's Bloom filter of (value, hour) pairs, for lookups of a value over a few hours.

A per-column filter says whether a file holds a user at all; a streaming file that spans 13:35 to
16:18 and holds the user at 16:18 cannot be ruled out for 12:00 to 14:00 by it, nor by min/max.
With zonemap.bloom_hour_column set, each file also gets one filter of every Bloom column's values
paired with the hour of that timestamp column in the rows holding them (hours since the epoch of
Iceberg's microseconds: UTC for timestamptz, the wall clock for timestamp). A conjunction that names
values of a Bloom column and bounds the timestamp column on both sides probes the pairs of its hours;
a file none of them hits holds no matching row. Only the columns that had a filter of their own when
the entry was built were paired: a lookup of any other column (not a Bloom column then) never probes
that entry's pairs.

The filter is stored under the timestamp column's field id: a timestamp column never has a filter
of its own (lakeops.zonemap.bloom.BLOOM_TYPES), so the key is free and the stored layout, the
consolidations and the hot index carry it unchanged. An entry without one is never pruned by it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pyiceberg.expressions import (
    And,
    BooleanExpression,
    BoundEqualTo,
    BoundGreaterThan,
    BoundGreaterThanOrEqual,
    BoundIn,
    BoundLessThan,
    BoundLessThanOrEqual,
)
from pyiceberg.schema import Schema
from pyiceberg.types import TimestampType, TimestamptzType

from lakeops.zonemap.bloom import BLOOM_TYPES

HOUR_US = 3_600_000_000
HOUR_TYPES = (TimestampType, TimestamptzType)
"""Types of the columns whose hours values are paired with (their values are microseconds since the epoch)."""
MAX_PROBES = 256
"""Most (value, hour) keys one lookup probes; a wider range or more values use the per-column filter alone."""


def pair_key(field_id: int, hour: int, value: Any) -> str:
    """What the filter holds for value of column field_id in a row of that hour (hours since the epoch)."""
    return f"{field_id}:{hour}:{value}"


def pair_keys(values: Mapping[int, Iterable[Any]], micros: Iterable[int | None]) -> set[str]:
    """The keys of one file: values (field id -> the column's values, row by row) paired with the
    hour of the same row's timestamp (microseconds since the epoch; None where null)."""
    hours = [None if m is None else m // HOUR_US for m in micros]
    return {pair_key(field_id, hour, v) for field_id, column in values.items()
            for v, hour in zip(column, hours, strict=True) if v is not None and hour is not None}


def hour_field_ids(blooms: Iterable[int], schema: Schema) -> list[int]:
    """Of the field ids that have filters, those of timestamp columns: the hour-pair filters."""
    found = []
    for field_id in blooms:
        try:
            field = schema.find_field(field_id)
        except ValueError:
            continue  # a dropped column: its filters answer nothing
        if isinstance(field.field_type, HOUR_TYPES):
            found.append(field_id)
    return found


def lookup_keys(bound: BooleanExpression, hour_field_id: int) -> list[tuple[int, list[str]]]:
    """Groups of keys for a bound predicate (NOT already rewritten away), each with the field id of
    the column it looks up: one group per conjunct that names values of a column of a filtered type,
    when the conjuncts bound the hour column on both sides; none otherwise. A file may match only if,
    for every group, its pair filter may hold one of the keys; a group applies only to the files that
    have a filter of that column of their own, as only those columns' values were paired."""
    conjuncts = _conjuncts(bound)
    lower, upper = None, None
    for leaf in conjuncts:
        if _field_id(leaf) != hour_field_id:
            continue
        if isinstance(leaf, (BoundGreaterThan, BoundGreaterThanOrEqual, BoundEqualTo)):
            low = leaf.literal.value + (1 if isinstance(leaf, BoundGreaterThan) else 0)
            lower = low if lower is None else max(lower, low)
        if isinstance(leaf, (BoundLessThan, BoundLessThanOrEqual, BoundEqualTo)):
            high = leaf.literal.value - (1 if isinstance(leaf, BoundLessThan) else 0)
            upper = high if upper is None else min(upper, high)
    if lower is None or upper is None or lower > upper:
        return []  # unbounded, or empty (then min/max rules every file out)
    hours = range(lower // HOUR_US, upper // HOUR_US + 1)
    groups = []
    for leaf in conjuncts:
        values = _bloom_values(leaf)
        field_id = _field_id(leaf)
        if values and field_id is not None and len(values) * len(hours) <= MAX_PROBES:
            groups.append((field_id, [pair_key(field_id, hour, v) for v in values for hour in hours]))
    return groups


def _conjuncts(expression: BooleanExpression) -> list[BooleanExpression]:
    if isinstance(expression, And):
        return _conjuncts(expression.left) + _conjuncts(expression.right)
    return [expression]


def _field_id(leaf: BooleanExpression) -> int | None:
    term = getattr(leaf, "term", None)
    return term.ref().field.field_id if term is not None else None


def _bloom_values(leaf: BooleanExpression) -> list[Any]:
    """The values an equality or IN on a Bloom column names (as the per-column filter hashes them)."""
    if not isinstance(leaf, (BoundEqualTo, BoundIn)) or not isinstance(leaf.term.ref().field.field_type, BLOOM_TYPES):
        return []
    literals = [leaf.literal] if isinstance(leaf, BoundEqualTo) else list(leaf.literals)
    return sorted({lit.value for lit in literals}, key=str)
