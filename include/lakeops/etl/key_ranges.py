"""Value ranges that cover an incremental run's affected values of one recompute column, as a SQL condition Iceberg
prunes files with (by their column bounds): a source or downstream table whose files each hold a narrow range of
that column (ids that grow with time, rows clustered by key) is read only where the affected values lie. Without
it, a model whose recompute columns hold no period (a changelog model keyed on an order id) read every source and
downstream file on each run, whatever the change.

The condition is a superset filter: every affected value lies in one of the ranges, and the run's exact match on
the affected values stays, so it changes which files are opened, never the result. Pure: no Spark, no catalog."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from lakeops.etl.utc import epoch_micros
from lakeops.sql_literals import literal

MAX_RANGES = 32
"""Ranges per column at most: the condition stays small for Spark's planning and Iceberg's per-file evaluation,
and the widest gaps between affected values are the ones left out."""


def rangeable(value: Any) -> bool:
    """Whether a value of this type gets ranges: integers, decimals, dates, timestamps and strings (not booleans or
    floats, whose NaN has no place in an order)."""
    return isinstance(value, (int, Decimal, date, str)) and not isinstance(value, bool)


def covering_ranges(values: Iterable[Any], limit: int = MAX_RANGES) -> list[tuple[Any, Any]]:
    """At most `limit` sorted, disjoint [low, high] ranges covering every value (nulls ignored). Numbers and times
    are cut at their widest gaps; strings, which have no distance, into runs of equal counts."""
    if limit < 1:
        raise ValueError(f"limit={limit}: at least one range is needed to cover the values")
    ordered = sorted({v for v in values if v is not None})
    if len(ordered) <= limit:
        return [(v, v) for v in ordered]
    if isinstance(ordered[0], str):
        size = -(-len(ordered) // limit)
        return [(ordered[i], ordered[min(i + size, len(ordered)) - 1]) for i in range(0, len(ordered), size)]
    gaps = [b - a for a, b in itertools.pairwise(ordered)]  # gaps[i] lies before ordered[i + 1]
    widest = heapq.nlargest(limit - 1, range(len(gaps)), key=gaps.__getitem__)
    starts = [0, *sorted(i + 1 for i in widest)]
    ends = [*starts[1:], len(ordered)]
    return [(ordered[s], ordered[e - 1]) for s, e in zip(starts, ends, strict=True)]


def sql_literal(value: Any) -> str:
    """A Spark SQL literal of the value (lakeops.sql_literals, but for two types): a timestamp is written as epoch
    microseconds (lakeops.etl.utc: a naive datetime is UTC), so it means the same instant whatever the session's and the
    process's time zones, and a decimal as a decimal literal, which Spark compares with a decimal column as is."""
    if not rangeable(value):
        raise ValueError(f"{value!r} ({type(value).__name__}) has no range literal; only "
                         "integers, decimals, dates, timestamps and strings do")
    if isinstance(value, datetime):
        return f"TIMESTAMP_MICROS({epoch_micros(value)})"
    if isinstance(value, Decimal):
        return f"{value:f}BD"
    return literal(value)


def range_condition(column: str, ranges: list[tuple[Any, Any]], nulls: bool = False) -> str:
    """SQL: `column` lies in one of the ranges, or with `nulls` is NULL (a NULL among the affected values is a value
    like any other; Iceberg prunes `IS NULL` by each file's null count). FALSE for no range and no null."""
    parts = [f"{column} = {sql_literal(low)}" if low == high
             else f"({column} >= {sql_literal(low)} AND {column} <= {sql_literal(high)})" for low, high in ranges]
    if nulls:
        parts.append(f"{column} IS NULL")
    return "(" + " OR ".join(parts) + ")" if parts else "FALSE"
