"""The ways a Spark read runs, decided from the index, each returning the full scan's rows: a few small
candidates read in the driver into a local frame with the table's Spark schema, the candidates' tasks
staged from the index (no planning in the JVM), a plain Iceberg scan when the index prunes too little,
and lakeops.read with a SQL WHERE string; on a snapshot committed after the last consolidation."""

from __future__ import annotations

import pytest
from pyiceberg import expressions as E

import lakeops
from lakeops.reading import read_explained
from lakeops.spark.zonemap_reads import pruned_frame
from lakeops.zonemap.consolidate import reconcile
from lakeops.zonemap.reads import read_pruned_arrow
from lakeops.zonemap.sql import to_spark_sql
from tests.integration.zonemap.conftest import event_rows, make_events_table

pytestmark = pytest.mark.spark


def test_arrow_staged_plain_and_where_string_reads_equal_full_scans(events, spark):
    for seed in range(4):
        events.append(event_rows(60, seed, users=400))
    reconcile(events.load(), events.spec)
    events.append(event_rows(60, 9, users=400))  # after the master: planned by replaying its snapshot
    table = events.load()
    counts = spark.sql(f"SELECT user_id, count(DISTINCT _file) AS n FROM {events.name} GROUP BY user_id").collect()
    singles = sorted(r[0] for r in counts if r[1] == 1)
    rare = singles[len(singles) // 2]  # in one file, inside every file's min/max range: only the Bloom filter prunes

    with pruned_frame(spark, events.name, table, E.EqualTo("user_id", rare), arrow_max_bytes=0) as read:
        assert read.plan.method == "staged", read.plan.reason
        assert read.candidates.replayed_snapshots == 1 and not read.candidates.full_listing
        assert sorted(r[0] for r in read.frame.select("event_id").collect()) == events.ids(f"user_id = {rare}")

    with pruned_frame(spark, events.name, table, E.EqualTo("user_id", rare)) as read:
        assert read.plan.method == "arrow", read.plan.reason
        assert read.frame.schema == spark.table(events.name).schema
        assert sorted(r[0] for r in read.frame.select("event_id").collect()) == events.ids(f"user_id = {rare}")
        expected = spark.table(events.name).where(f"user_id = {rare}").orderBy("event_id").collect()
        assert read.frame.orderBy("event_id").collect() == expected  # every column, as Spark reads it

    with pruned_frame(spark, events.name, table, E.In("country", ["DE", "FR"])) as read:
        assert read.plan.method == "plain" and "plain Iceberg scan" in read.plan.reason
        assert sorted(r[0] for r in read.frame.select("event_id").collect()) == events.ids("country IN ('DE', 'FR')")

    where = f"user_id = {rare} AND event_type != 'nothing'"
    frame = lakeops.read(spark, "lakeops.events", where=where, config=events.config)
    assert sorted(r[0] for r in frame.select("event_id").collect()) == events.ids(where)
    explained = read_explained(spark, "lakeops.events", where=where, config=events.config)
    assert explained.plan.method == "arrow" and explained.files_read == len(explained.candidates.files)
    explained = read_explained(spark, "lakeops.events", where=where, config=events.config, arrow_max_bytes=0)
    assert explained.plan.method == "staged" and explained.files_read == len(explained.candidates.files)
    assert sorted(r[0] for r in explained.frame.select("event_id").collect()) == events.ids(where)


def test_reads_built_from_the_index_restore_identity_bucket_and_day_partitions(spark, tmp_path):
    """Tasks built from the index carry the file's partition (identity string with nulls, bucket, day):
    every way of reading returns the full scan's rows."""
    events = make_events_table(spark, tmp_path, partition_by=["country", "bucket(4, user_id)", "day(event_time)"])
    for seed in range(3):
        events.append(event_rows(80, seed, users=300))
    table = events.load()
    assert len(table.spec().fields) == 3
    counts = spark.sql(f"SELECT user_id, count(DISTINCT _file) AS n FROM {events.name} GROUP BY user_id").collect()
    rare = sorted(r[0] for r in counts if r[1] == 1)[:2]
    methods = set()
    for predicate in (E.EqualTo("user_id", rare[0]), E.And(E.IsNull("country"), E.In("user_id", rare)),
                      E.And(E.EqualTo("country", "DE"), E.EqualTo("user_id", rare[1]))):
        expected = events.ids(to_spark_sql(predicate, table.schema()))
        pruned = read_pruned_arrow(table, predicate, selected_fields=("event_id",))
        assert sorted(pruned.rows.column("event_id").to_pylist()) == expected
        for limit in (0, 1 << 30):
            with pruned_frame(spark, events.name, table, predicate, arrow_max_bytes=limit) as read:
                methods.add(read.plan.method)
                assert sorted(r[0] for r in read.frame.select("event_id").collect()) == expected
    assert {"arrow", "staged"} <= methods, methods


def test_a_local_read_gives_spark_s_arrow_rows_without_a_spark_job(events, spark):
    """The driver-read frame's toArrow() returns its held rows cast as Spark would: the same table as Spark's own
    collect (a job) and as a plain Iceberg read, for decimal, timestamp without zone, date, list, struct, map
    and binary columns; and it runs no Spark job."""
    from datetime import date, datetime
    from decimal import Decimal

    from pyspark.sql.classic.dataframe import DataFrame

    spark.sql(f"ALTER TABLE {events.name} ADD COLUMNS (amount decimal(12, 2), local_time timestamp_ntz, day date, "
              "tags array<string>, dims struct<a: int, b: string>, raw binary)")
    for seed in range(4):
        rows = event_rows(60, seed, users=400)
        for i, row in enumerate(rows):
            row.update(amount=Decimal(f"{i}.{i % 100:02d}"), local_time=datetime(2026, 3, 29, 2, i % 60),
                       day=date(2026, 1, 1 + i % 28), tags=[f"t{i}", None] if i % 3 else None,
                       dims={"a": i, "b": None if i % 2 else f"b{i}"}, raw=bytes([i % 256, 0]),
                       properties={"k": str(i)} if i % 4 else {})
        events.append(rows)
    table = events.load()
    counts = spark.sql(f"SELECT user_id, count(DISTINCT _file) AS n FROM {events.name} GROUP BY user_id").collect()
    singles = sorted(r[0] for r in counts if r[1] == 1)
    user = singles[len(singles) // 2]  # inside every file's min/max range: the Bloom filter prunes
    with pruned_frame(spark, events.name, table, E.EqualTo("user_id", user)) as read:
        assert read.plan.method == "arrow", read.plan.reason
        spark.sparkContext.setJobGroup("held-rows", "toArrow of a local read")
        held = read.frame.toArrow()
        assert spark.sparkContext.statusTracker().getJobIdsForGroup("held-rows") == []
        collected = DataFrame.toArrow(read.frame)  # Spark's own: a job
        assert spark.sparkContext.statusTracker().getJobIdsForGroup("held-rows") != []
        spark.sparkContext.setJobGroup(None, None)
    assert held.schema == collected.schema and held.equals(collected)
    plain = spark.table(events.name).where(f"user_id = {user}").toArrow()
    assert held.num_rows == len(events.ids(f"user_id = {user}")) > 0
    assert held.sort_by("event_id").equals(plain.sort_by("event_id"))
