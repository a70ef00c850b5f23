"""A Spark SQL predicate selecting exactly one partition, from its partition values and the table's
partition transforms: pure. rewrite_data_files takes it as `where`, so a rewrite reads and
commits only that partition."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

from lakeops.exceptions import ConfigError
from lakeops.sql_literals import literal

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_TRANSFORM = re.compile(r"^(?:(year|month|day|hour)\((\w+)\)|bucket\((\d+),\s*(\w+)\)|truncate\((\d+),\s*(\w+)\)|(\w+))$")


def partition_field_name(transform: str) -> str:
    """Iceberg's default partition field name: day(created_at) -> created_at_day, bucket(8, id) -> id_bucket."""
    match = _TRANSFORM.match(transform.strip())
    if not match:
        raise ConfigError(f"partition_by: {transform!r} is not a partition transform")
    if match.group(1):
        return f"{match.group(2)}_{match.group(1)}"
    if match.group(4):
        return f"{match.group(4)}_bucket"
    if match.group(6):
        return f"{match.group(6)}_trunc"
    return match.group(7)


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


def transform_predicate(transform: str, value: Any) -> str:
    """The predicate on the source column that selects partition value `value` of `transform`."""
    match = _TRANSFORM.match(transform.strip())
    if not match:
        raise ConfigError(f"partition_by: {transform!r} is not a partition transform")
    unit, column = match.group(1), match.group(2)
    if unit:
        if value is None:
            return f"{column} IS NULL"
        start, end = _time_range(unit, _as_ordinal(value, unit))
        return f"{column} >= {literal(start)} AND {column} < {literal(end)}"
    if match.group(3):
        buckets, column = int(match.group(3)), match.group(4)
        return f"{column} IS NULL" if value is None else f"system.bucket({buckets}, {column}) = {int(value)}"
    if match.group(5):
        width, column = int(match.group(5)), match.group(6)
        if value is None:
            return f"{column} IS NULL"
        if isinstance(value, int):
            return f"{column} >= {value} AND {column} < {value + width}"
        return f"system.truncate({width}, {column}) = {literal(value)}"
    column = match.group(7)
    return f"{column} IS NULL" if value is None else f"{column} = {literal(value)}"


def partition_where(partition_by: tuple[str, ...], partition_values: tuple[tuple[str, Any], ...]) -> str | None:
    """The predicate for one partition (None for an unpartitioned table: the whole table).

    Raises ConfigError when a partition field is not one of the configured transforms (the table's
    spec evolved away from the config): the planner then skips that partition rather than guess."""
    if not partition_values:
        return None
    by_field = {partition_field_name(t): t for t in partition_by}
    parts = []
    for field_name, value in partition_values:
        if field_name not in by_field:
            raise ConfigError(f"partition field {field_name!r} is not produced by partition_by {list(partition_by)}; "
                              "align the table's partition spec with the config")
        parts.append(f"({transform_predicate(by_field[field_name], value)})")
    return " AND ".join(parts)
