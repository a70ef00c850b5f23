"""Hour pairs on files written by Spark: a file that spans hours (late events) and holds a user only
outside the looked-up window is pruned, from the micro zonemap and from the daily master after a
consolidation; the pruned reads still return the rows of a full scan, on both read paths, and a
lookup of a column without a filter of its own is never pruned by the pairs."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pyiceberg import expressions as E

from lakeops.spark.zonemap_reads import pruned_frame
from lakeops.zonemap.candidates import candidate_files
from lakeops.zonemap.consolidate import consolidate_day
from lakeops.zonemap.hot import HOT
from lakeops.zonemap.reads import read_pruned_arrow
from lakeops.zonemap.sql import to_spark_sql
from tests.integration.zonemap.conftest import T0, commit_day, event_rows, make_events_table

pytestmark = pytest.mark.spark
ZONEMAP = {"columns": ["event_time", "user_id", "country", "event_type"], "bloom_columns": ["user_id"],
           "bloom_hour_column": "event_time"}
OLD = T0 - timedelta(days=3)
USER = 4242


def _window(start_hour: int, hours: int) -> E.BooleanExpression:
    start = OLD + timedelta(hours=start_hour)
    return E.And(E.EqualTo("user_id", USER), E.And(E.GreaterThanOrEqual("event_time", start.isoformat()),
                                                   E.LessThan("event_time", (start + timedelta(hours=hours)).isoformat())))


def test_a_file_holding_the_user_only_at_other_hours_is_pruned_hot_and_cold(spark, tmp_path):
    events = make_events_table(spark, tmp_path, zonemap=ZONEMAP)
    # File A spans 10:00 to 13:00 (late events) and holds the user at 12:30 only; file B holds the user at 10:15.
    spanning = event_rows(60, 1, start=OLD, users=300) + event_rows(20, 2, start=OLD + timedelta(hours=2), users=300)
    spanning[-1] = dict(spanning[-1], user_id=USER, event_time=OLD + timedelta(hours=2, minutes=30))
    in_window = event_rows(40, 3, start=OLD, users=300)
    in_window[0] = dict(in_window[0], user_id=USER, event_time=OLD + timedelta(minutes=15))
    events.append(spanning)
    events.append(in_window)

    def check(where: str) -> None:
        table = events.load()
        # (window, files min/max keeps, files the hour pairs keep): 11:00 to 12:00 is inside A's range, without the user.
        for predicate, minmax, kept in ((_window(0, 1), 2, 1), (_window(2, 1), 1, 1), (_window(0, 3), 2, 2),
                                        (_window(1, 1), 1, 0)):
            found = candidate_files(table, predicate)
            assert (found.minmax_files, len(found.files)) == (minmax, kept), (where, predicate, found.files)
            full = sorted(table.scan(row_filter=predicate).to_arrow().column("event_id").to_pylist())
            assert sorted(read_pruned_arrow(table, predicate).rows.column("event_id").to_pylist()) == full
            with pruned_frame(spark, events.name, table, predicate) as read:
                assert sorted(r[0] for r in read.frame.select("event_id").collect()) == full
                assert full == events.ids(to_spark_sql(predicate, table.schema()))
        assert len(candidate_files(table, E.EqualTo("user_id", USER)).files) == 2, "no window: both files hold the user"
        # country has no filter of its own, so its values were never paired: a lookup of it is not pruned by the pairs.
        country = E.And(E.EqualTo("country", "DE"), _window(0, 3).right)
        full = sorted(table.scan(row_filter=country).to_arrow().column("event_id").to_pylist())
        assert full and len(candidate_files(table, country).files) == 2
        assert sorted(read_pruned_arrow(table, country).rows.column("event_id").to_pylist()) == full

    HOT.clear()
    check("micro zonemaps")
    table = events.load()
    result = consolidate_day(table, events.spec, commit_day(table))
    assert result.removed_micro == 2
    HOT.clear()
    check("daily master")
