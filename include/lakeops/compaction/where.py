"""A Spark SQL predicate selecting exactly one partition, from its partition values and the transforms of
the spec that wrote it (as the table's metadata has them, parsed by pyiceberg): pure.
rewrite_data_files takes it as `where`, so a rewrite reads and commits only that partition."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from lakeops.exceptions import ConfigError
from lakeops.sql_literals import literal
from lakeops.tables.identifier import quote

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _as_ordinal(value: Any, unit: str) -> int:
    """pyiceberg hands time partition values as ints (units since 1970) or, for day, as a date."""
    if isinstance(value, datetime):
        value = value.date()
    if isinstance(value, date):
        if unit != "day":
            raise ConfigError(f"partition value {value!r} is a date but the transform is {unit}")
        return (value - _EPOCH.date()).days
    return int(value)


def _time_range(unit: str, ordinal: int) -> tuple[datetime, datetime]:
    if unit == "hour":
        start = _EPOCH + timedelta(hours=ordinal)
        return start, start + timedelta(hours=1)
    if unit == "day":
        start = _EPOCH + timedelta(days=ordinal)
        return start, start + timedelta(days=1)
    months = ordinal * 12 if unit == "year" else ordinal
    step = 12 if unit == "year" else 1
    start = datetime(1970 + months // 12, months % 12 + 1, 1, tzinfo=UTC)
    end_months = months + step
    return start, datetime(1970 + end_months // 12, end_months % 12 + 1, 1, tzinfo=UTC)


def transform_predicate(column: str, transform: str, value: Any) -> str | None:
    """The predicate on `column` that selects partition value `value` of `transform` (pyiceberg's name:
    identity, year, month, day, hour, bucket[N], truncate[W], void); None when the field selects nothing
    (a void field, dropped from the spec: every row has a null there)."""
    from pyiceberg.transforms import (
        BucketTransform,
        DayTransform,
        HourTransform,
        IdentityTransform,
        MonthTransform,
        TruncateTransform,
        VoidTransform,
        YearTransform,
        parse_transform,
    )

    parsed = parse_transform(transform)
    if isinstance(parsed, VoidTransform):
        return None
    name = quote(column)
    if value is None:
        return f"{name} IS NULL"
    units = {YearTransform: "year", MonthTransform: "month", DayTransform: "day", HourTransform: "hour"}
    for cls, unit in units.items():
        if isinstance(parsed, cls):
            start, end = _time_range(unit, _as_ordinal(value, unit))
            return f"{name} >= {literal(start)} AND {name} < {literal(end)}"
    if isinstance(parsed, BucketTransform):
        return f"system.bucket({parsed.num_buckets}, {name}) = {int(value)}"
    if isinstance(parsed, TruncateTransform):
        if isinstance(value, int):
            return f"{name} >= {value} AND {name} < {value + parsed.width}"
        return f"system.truncate({parsed.width}, {name}) = {literal(value)}"
    if isinstance(parsed, IdentityTransform):
        return f"{name} = {literal(value)}"
    raise ConfigError(f"partition transform {transform!r} of column {column!r} has no predicate lakeops can write")


def partition_where(values: tuple[tuple[str, Any], ...], sources: tuple[tuple[str, str], ...]) -> str | None:
    """The predicate for one partition (None for an unpartitioned table: the whole table).

    `values` are (partition field, value) pairs, `sources` (source column, transform) of the same fields,
    both from the table's metadata. Raises ConfigError when a field's source column is gone from the
    schema: the planner then skips that partition rather than guess."""
    if not values:
        return None
    if len(sources) != len(values):
        raise ConfigError(f"partition {values!r} has no source columns and transforms; evaluate health again")
    parts = []
    for (field, value), (column, transform) in zip(values, sources, strict=True):
        if not column:
            raise ConfigError(f"partition field {field!r} reads a column the table's schema no longer has")
        predicate = transform_predicate(column, transform, value)
        if predicate is not None:
            parts.append(f"({predicate})")
    return " AND ".join(parts) or None
