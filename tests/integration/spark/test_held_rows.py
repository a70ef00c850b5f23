"""lakeops.spark.held_rows on local Spark: the frame made in fewer JVM calls holds exactly the rows, types and
batches Spark's own createDataFrame makes of the same Arrow table, whatever the session's time zone and batch size."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pyarrow as pa
import pytest
from pyspark.sql.types import (
    DateType,
    DecimalType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
)

from lakeops.spark.held_rows import HeldRowsFrame

pytestmark = pytest.mark.spark

SCHEMA = StructType([
    StructField("id", LongType()), StructField("name", StringType()), StructField("at", TimestampType()),
    StructField("local_at", TimestampNTZType()), StructField("wall_at", TimestampType()), StructField("day", DateType()),
    StructField("amount", DecimalType(12, 2)), StructField("props", MapType(StringType(), StringType())),
])


def _rows(n: int) -> pa.Table:
    """What pyiceberg's Arrow reader gives for such a table (UTC timestamps for timestamptz, naive ones for timestamp),
    and naive nanoseconds for a Spark timestamp, which Spark reads in the session's time zone, truncated."""
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "name": [None if i % 7 == 0 else f"n{i}" for i in range(n)],
        "at": pa.array([datetime(2026, 3, 29, 0, 30 + i % 29, tzinfo=UTC) for i in range(n)], pa.timestamp("us", tz="UTC")),
        "local_at": pa.array([datetime(2026, 10, 25, 2, i % 60) for i in range(n)], pa.timestamp("us")),
        "wall_at": pa.array([1_774_746_600_000_000_123 + i * 60_000_000_000 for i in range(n)], pa.timestamp("ns")),
        "day": pa.array([date(2026, 1, 1 + i % 28) for i in range(n)], pa.date32()),
        "amount": pa.array([Decimal(i) / 100 for i in range(n)], pa.decimal128(12, 2)),
        "props": pa.array([[("k", str(i))] if i % 3 else None for i in range(n)], pa.map_(pa.string(), pa.string())),
    })


@pytest.mark.parametrize("zone, per_batch", [("UTC", "10000"), ("Europe/Berlin", "3"), ("America/Los_Angeles", "1")])
def test_the_held_frame_equals_sparks_own_createDataFrame(spark, zone, per_batch):
    rows = _rows(17)
    before = {k: spark.conf.get(k) for k in ("spark.sql.session.timeZone", "spark.sql.execution.arrow.maxRecordsPerBatch")}
    spark.conf.set("spark.sql.session.timeZone", zone)
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", per_batch)
    try:
        held = HeldRowsFrame.of(spark, rows, SCHEMA)
        own = spark.createDataFrame(rows, schema=SCHEMA)
        assert held.schema == own.schema == SCHEMA
        assert held.rdd.getNumPartitions() == own.rdd.getNumPartitions()  # the same partitions
        assert held.orderBy("id").collect() == own.orderBy("id").collect()  # Spark reads the held frame's relation
        assert held.where("props IS NULL").count() == own.where("props IS NULL").count() == 6
        assert held.toArrow().equals(own.toArrow())  # the rows held, as Spark's job gives them
    finally:
        for key, value in before.items():
            spark.conf.set(key, value)


def test_an_empty_table_gives_an_empty_frame(spark):
    empty = _rows(0)
    held = HeldRowsFrame.of(spark, empty, SCHEMA)
    assert held.count() == 0 and held.toArrow().num_rows == 0 and held.schema == SCHEMA


def test_the_shorter_path_is_the_one_taken_and_a_differing_pyspark_falls_back(spark, monkeypatch, caplog):
    """With this PySpark the frame is made in five JVM calls, not by createDataFrame; where the internals it follows
    are missing (another PySpark), createDataFrame makes the same frame, with one warning."""
    from lakeops.spark import held_rows

    rows = _rows(5)
    made = []
    create = type(spark).createDataFrame
    monkeypatch.setattr(type(spark), "createDataFrame", lambda self, *a, **k: made.append(1) or create(self, *a, **k))
    assert HeldRowsFrame.of(spark, rows, SCHEMA).count() == 5 and not made

    monkeypatch.setattr(held_rows, "_SQL_UTILS", "org.apache.spark.sql.api.python.NoSuchUtils")
    monkeypatch.setattr(held_rows, "_UTILS", None)
    monkeypatch.setattr(held_rows, "_FELL_BACK", False)
    with caplog.at_level("WARNING", logger="lakeops.spark.held_rows"):
        frames = [HeldRowsFrame.of(spark, rows, SCHEMA) for _ in range(2)]
    assert made == [1, 1] and all(f.orderBy("id").collect() == frames[0].orderBy("id").collect() for f in frames)
    assert len([r for r in caplog.records if "createDataFrame" in r.getMessage()]) == 1


def test_the_java_frame_is_made_once_on_first_use_and_not_for_toArrow(spark, monkeypatch):
    """Taking the rows as Arrow makes no Java frame; the first use that needs one makes it, and only that one; rows
    that do not cast as they are make it at once."""
    from lakeops.spark import held_rows

    made = []
    local_relation = held_rows._local_relation
    monkeypatch.setattr(held_rows, "_local_relation", lambda *a: made.append(1) or local_relation(*a))
    rows = _rows(9).drop_columns(["wall_at"])  # whose nanoseconds Spark truncates: such rows are made at once
    schema = StructType([f for f in SCHEMA.fields if f.name != "wall_at"])
    held = HeldRowsFrame.of(spark, rows, schema)
    assert held.toArrow().equals(spark.createDataFrame(rows, schema=schema).toArrow()) and made == []
    assert held.where("id > 3").count() == 5 and made == [1]
    assert held.select("id").join(held.select("id", "name"), "id").count() == 9 and made == [1]
    finer = HeldRowsFrame.of(spark, _rows(9), SCHEMA)
    assert made == [1, 1] and finer.toArrow().equals(spark.createDataFrame(_rows(9), schema=SCHEMA).toArrow())


def test_rows_spark_cannot_take_are_refused_when_the_frame_is_made(spark):
    """Rows that neither cast to the schema's Arrow types nor convert for Spark raise in of(), not at a later use: a
    reader falls back on that error (lakeops.spark.zonemap_reads._arrow_frame)."""
    rows = pa.table({"id": pa.array(["not a number"])})
    with pytest.raises((pa.ArrowException, TypeError, ValueError)):
        HeldRowsFrame.of(spark, rows, StructType([StructField("id", LongType())]))
