"""Pruned reads, pyarrow and Spark, return exactly the rows of a full scan, also when the kept files
have position delete files (merge-on-read DELETE and MERGE) and, on the Spark path, equality
delete files, which the pyarrow path refuses with an error naming the Spark path."""

from __future__ import annotations

import pytest
from pyiceberg import expressions as E
from pyiceberg.manifest import DataFileContent

from lakeops.exceptions import ZonemapError
from lakeops.spark.zonemap_reads import pruned_frame
from lakeops.zonemap.reads import read_pruned_arrow
from lakeops.zonemap.sql import to_spark_sql
from tests.integration.equality_deletes import commit_equality_delete
from tests.integration.zonemap.conftest import EventsTable, event_rows, make_events_table

pytestmark = pytest.mark.spark

PREDICATES = [
    E.EqualTo("user_id", 7),
    E.In("country", ["DE", "FR"]),
    E.And(E.GreaterThanOrEqual("user_id", 100), E.LessThan("user_id", 140)),
    E.Or(E.IsNull("country"), E.EqualTo("event_type", "purchase")),
    E.Not(E.In("country", ["BR", "DE", "FR", "GB", "IN"])),
]


@pytest.fixture(scope="module")
def merged(spark, tmp_path_factory) -> EventsTable:
    events = make_events_table(spark, tmp_path_factory.mktemp("reads"))
    spark.sql(f"ALTER TABLE {events.name} SET TBLPROPERTIES ('write.delete.mode'='merge-on-read', "
              "'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read')")
    for seed in range(4):
        events.append([dict(r, user_id=r["user_id"] + 150 * seed) for r in event_rows(80, seed, users=150)])
    spark.sql(f"DELETE FROM {events.name} WHERE user_id % 3 = 0")
    updates = spark.createDataFrame([(f"e1-{i}", "XX") for i in range(0, 80, 2)], "event_id STRING, country STRING")
    updates.createOrReplaceTempView("country_fixes")
    spark.sql(f"MERGE INTO {events.name} t USING country_fixes s ON t.event_id = s.event_id "
              "WHEN MATCHED THEN UPDATE SET t.country = s.country")
    return events


def _position_deletes(table) -> int:
    return sum(1 for t in table.scan().plan_files() for d in t.delete_files if d.content == DataFileContent.POSITION_DELETES)


@pytest.mark.parametrize("predicate", PREDICATES, ids=str)
def test_both_paths_return_the_full_scan_rows_over_position_deletes(merged, spark, predicate):
    table = merged.load()
    assert _position_deletes(table) > 0, "DELETE and MERGE in merge-on-read mode wrote position deletes"
    full = sorted(table.scan(row_filter=predicate, selected_fields=("event_id",)).to_arrow().column("event_id").to_pylist())
    pruned = read_pruned_arrow(table, predicate, selected_fields=("event_id",))
    assert sorted(pruned.rows.column("event_id").to_pylist()) == full

    where = to_spark_sql(predicate, table.schema())
    spark_full = merged.ids(where)
    with pruned_frame(spark, merged.name, table, predicate) as read:
        assert sorted(r[0] for r in read.frame.select("event_id").collect()) == spark_full
    if "Not" not in str(predicate):  # pyiceberg's Arrow filter keeps null rows under NOT IN; Spark (SQL) drops them
        assert spark_full == full, "Spark and pyiceberg agree on the full scan"
    assert pruned.files_read <= pruned.candidates.live_files


def test_a_selective_predicate_reads_fewer_files(merged):
    pruned = read_pruned_arrow(merged.load(), E.EqualTo("user_id", 160), selected_fields=("event_id",))
    assert pruned.files_read < pruned.candidates.live_files


def test_equality_deletes_are_refused_by_pyarrow_and_honored_by_spark(spark, tmp_path):
    events = make_events_table(spark, tmp_path)
    for seed in range(2):
        events.append(event_rows(60, seed, users=20))
    victim = events.spark.sql(f"SELECT user_id FROM {events.name} LIMIT 1").collect()[0][0]
    table = events.load()
    commit_equality_delete(spark, events.name, table, "user_id", [victim], next(iter(table.scan().plan_files())).file)
    table = events.load()
    predicate = E.LessThan("user_id", 10)
    with pytest.raises(ZonemapError, match="lakeops.spark.zonemap_reads"):
        read_pruned_arrow(table, predicate)
    expected = events.ids("user_id < 10")
    assert victim not in [r[0] for r in spark.sql(f"SELECT user_id FROM {events.name}").collect()]
    with pruned_frame(spark, events.name, table, predicate) as read:
        assert sorted(r[0] for r in read.frame.select("event_id").collect()) == expected
