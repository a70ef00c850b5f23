"""The affected values an incremental ETL run holds in the driver (lakeops.spark.etl_incremental.distinct_values): from the
Arrow form Spark's toArrow() gives, the same Python values PySpark's collect() gives, each once, nulls dropped."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pyarrow as pa
from pyspark.sql.types import DateType, LongType, TimestampNTZType, TimestampType

from lakeops.spark.etl_incremental import distinct_values


def _local(moment: datetime) -> datetime:
    """A UTC instant as PySpark's collect() returns a TimestampType value: a naive datetime in local time."""
    return datetime.fromtimestamp(moment.timestamp())


def test_timestamps_come_back_as_collect_gives_them_each_once_without_nulls():
    five, six = datetime(2026, 10, 1, 5, tzinfo=UTC), datetime(2026, 10, 1, 6, tzinfo=UTC)
    column = pa.chunked_array([pa.array([five, None, six], pa.timestamp("us", tz="UTC")),
                               pa.array([five], pa.timestamp("us", tz="UTC"))])

    assert sorted(distinct_values(column, TimestampType())) == [_local(five), _local(six)]


def test_wall_clock_timestamps_and_dates_keep_their_wall_clock_and_day():
    ntz = pa.chunked_array([pa.array([datetime(2026, 3, 29, 2, 30), datetime(2026, 3, 29, 2, 30)], pa.timestamp("us"))])
    days = pa.chunked_array([pa.array([date(2026, 10, 1), None, date(2026, 10, 3)], pa.date32())])

    assert distinct_values(ntz, TimestampNTZType()) == [datetime(2026, 3, 29, 2, 30)]
    assert sorted(distinct_values(days, DateType())) == [date(2026, 10, 1), date(2026, 10, 3)]


def test_other_types_are_plain_python_values():
    assert sorted(distinct_values(pa.chunked_array([pa.array([3, 1, 3, None], pa.int64())]), LongType())) == [1, 3]
    assert distinct_values(pa.chunked_array([pa.array([], pa.int64())]), LongType()) == []
