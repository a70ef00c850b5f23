"""The three ways a Spark read runs, decided from the index, each returning the full scan's rows: the
candidates' tasks staged from the index (no planning in the JVM), a plain Iceberg scan when the
index prunes too little, and lakeops.read with a SQL WHERE string; on a snapshot committed after
the last consolidation."""

from __future__ import annotations

import pytest
from pyiceberg import expressions as E

import lakeops
from lakeops.reading import read_explained
from lakeops.spark.zonemap_reads import pruned_frame
from lakeops.zonemap.consolidate import reconcile
from tests.integration.zonemap.conftest import event_rows

pytestmark = pytest.mark.spark


def test_staged_plain_and_where_string_reads_equal_full_scans(events, spark):
    for seed in range(4):
        events.append(event_rows(60, seed, users=400))
    reconcile(events.load(), events.spec)
    events.append(event_rows(60, 9, users=400))  # after the master: planned by replaying its snapshot
    table = events.load()
    counts = spark.sql(f"SELECT user_id, count(DISTINCT _file) AS n FROM {events.name} GROUP BY user_id").collect()
    singles = sorted(r[0] for r in counts if r[1] == 1)
    rare = singles[len(singles) // 2]  # in one file, inside every file's min/max range: only the Bloom filter prunes

    with pruned_frame(spark, events.name, table, E.EqualTo("user_id", rare)) as read:
        assert read.plan.method == "staged", read.plan.reason
        assert read.candidates.replayed_snapshots == 1 and not read.candidates.full_listing
        assert sorted(r[0] for r in read.frame.select("event_id").collect()) == events.ids(f"user_id = {rare}")

    with pruned_frame(spark, events.name, table, E.In("country", ["DE", "FR"])) as read:
        assert read.plan.method == "plain" and "plain Iceberg scan" in read.plan.reason
        assert sorted(r[0] for r in read.frame.select("event_id").collect()) == events.ids("country IN ('DE', 'FR')")

    where = f"user_id = {rare} AND event_type != 'nothing'"
    frame = lakeops.read(spark, "lakeops.events", where=where, config=events.config)
    assert sorted(r[0] for r in frame.select("event_id").collect()) == events.ids(where)
    explained = read_explained(spark, "lakeops.events", where=where, config=events.config)
    assert explained.plan.method == "staged" and explained.files_read == len(explained.candidates.files)
