"""Incremental ETL on local Spark + Iceberg: watermarks in the data commit, late events, backfills
in reverse order, expired watermarks, CDC updates and deletes. "From scratch" is the downstream
definition applied to the whole source. Crashes of the real job and their retries:
test_etl_crash.py."""

from __future__ import annotations

import dataclasses
from datetime import date
from decimal import Decimal

import pytest

from lakeops.catalog import load_catalog
from lakeops.etl.inputs import plan_from_catalog
from lakeops.spark.etl import run_etl
from lakeops.spark.etl_changes import CHANGE_TYPE, changelog
from lakeops.watermark import current_watermarks, watermarks_of
from tests.integration.etl.helpers import (
    BATCH1,
    BATCH2,
    activity,
    activity_from_scratch,
    append_events,
    at,
    create_tables,
    from_scratch,
    sorted_rows,
)

pytestmark = pytest.mark.spark


def _run(spark, config, model="user_activity_hourly", **kwargs):
    catalog = load_catalog(config.catalog)
    return run_etl(spark, catalog, config, plan_from_catalog(catalog, config, model, **kwargs))


def _table(config, name):
    return load_catalog(config.catalog).load_table(config.identifier(name))


def test_incremental_run_with_late_events_equals_a_recompute(catalog_spark, lakeops_config):
    spark, config = catalog_spark, lakeops_config
    create_tables(spark, config, "events")
    append_events(spark, config, BATCH1)
    first = _run(spark, config)
    assert (first.mode, first.status) == ("full", "committed")
    append_events(spark, config, BATCH2)
    second = _run(spark, config)
    assert (second.mode, second.status, second.keys) == ("incremental", "committed", 2)

    assert current_watermarks(_table(config, "user_activity_hourly")) == {
        "events": _table(config, "events").current_snapshot().snapshot_id}
    got = activity(spark, config)
    assert got == activity_from_scratch(spark, config)
    user1_10h = [r for r in got if r[0] == 1 and r[1] == at(21, 10)]
    assert user1_10h == [(1, at(21, 10), 3, (("click", 1), ("page_view", 1), ("purchase", 1)), 2, at(21, 10, 5), at(21, 10, 59))]
    assert _run(spark, config).mode == "noop"


def test_backfill_in_reverse_order_equals_the_incremental_result(catalog_spark, lakeops_config):
    spark, config = catalog_spark, lakeops_config
    create_tables(spark, config, "events")
    append_events(spark, config, BATCH1)
    _run(spark, config)
    append_events(spark, config, BATCH2)
    append_events(spark, config, [("e7", 2, "s5", at(23, 0, 0), "click")])
    _run(spark, config)
    incremental = activity(spark, config)
    marks = current_watermarks(_table(config, "user_activity_hourly"))

    # A backfill on the live table keeps the watermark and the result; its commit carries none.
    one = _run(spark, config, backfill_dates=(date(2026, 11, 22),))
    assert (one.mode, one.status) == ("backfill", "committed")
    downstream = _table(config, "user_activity_hourly")
    assert watermarks_of(downstream.current_snapshot().summary.additional_properties) == {}
    assert current_watermarks(downstream) == marks
    assert activity(spark, config) == incremental
    assert _run(spark, config, backfill_dates=(date(2026, 11, 22),)).status == "already_committed"

    # From an empty downstream table, each date backfilled newest first.
    spark.sql(f"DELETE FROM {config.qualified('user_activity_hourly')}")
    assert activity(spark, config) == []
    for day in (23, 22, 21):
        assert _run(spark, config, backfill_dates=(date(2026, 11, day),)).status == "committed"
    assert activity(spark, config) == incremental
    assert current_watermarks(_table(config, "user_activity_hourly")) == marks


def _expire(spark, config, snapshot_id):
    spark.sql(f"CALL {config.catalog.name}.system.expire_snapshots(table => '{config.qualified('events')}', "
              f"snapshot_ids => array({snapshot_id}))")


def test_expired_watermark_snapshot_recomputes_the_dates_changed_since(catalog_spark, lakeops_config, caplog):
    spark, config = catalog_spark, lakeops_config
    create_tables(spark, config, "events")
    append_events(spark, config, BATCH1)
    _run(spark, config)
    mark = current_watermarks(_table(config, "user_activity_hourly"))["events"]
    append_events(spark, config, BATCH2[:1])  # late: the 21st only
    _expire(spark, config, mark)
    catalog = load_catalog(config.catalog)
    plan = plan_from_catalog(catalog, config, "user_activity_hourly")
    assert plan.mode == "range" and plan.dates == (date(2026, 11, 21),)
    assert f"watermark snapshot {mark} of source events has been expired" in plan.reason
    with caplog.at_level("WARNING", logger="lakeops.spark.etl"):
        result = run_etl(spark, catalog, config, plan)
    assert result.status == "committed" and "expired" in caplog.text
    assert activity(spark, config) == activity_from_scratch(spark, config)
    downstream = _table(config, "user_activity_hourly").current_snapshot().summary
    assert downstream["lakeops.etl-dates"] == "2026-11-21"
    events = _table(config, "events").current_snapshot()
    assert watermarks_of(downstream.additional_properties) == {"events": events.snapshot_id}
    assert downstream["lakeops.watermark-sequence.events"] == str(events.sequence_number)
    assert downstream["lakeops.watermark-records.events"] == "5"

    # A merge-on-read delete of one of the 21st's first events: a position delete file names the file it lies in.
    spark.sql(f"ALTER TABLE {config.qualified('events')} SET TBLPROPERTIES ('write.delete.mode'='merge-on-read')")
    spark.sql(f"DELETE FROM {config.qualified('events')} WHERE event_id = 'e3'")
    assert _table(config, "events").current_snapshot().summary["added-position-deletes"] == "1"
    _expire(spark, config, events.snapshot_id)
    plan = plan_from_catalog(load_catalog(config.catalog), config, "user_activity_hourly")
    assert plan.mode == "range" and plan.dates == (date(2026, 11, 21),), plan.reason
    assert _run(spark, config).status == "committed"
    assert activity(spark, config) == activity_from_scratch(spark, config)
    assert not [r for r in activity(spark, config) if r[0] == 2]


def _compact(spark, config):
    spark.sql(f"CALL {config.catalog.name}.system.rewrite_data_files(table => '{config.qualified('events')}', "
              f"options => map('min-input-files', '2', 'rewrite-all', 'true'))")


def test_expired_watermark_after_a_compaction_recomputes_the_compacted_dates_or_in_full(catalog_spark, lakeops_config):
    """While the snapshots since the watermark are kept, the compaction's manifests list the files it removed and
    their dates are recomputed; once those snapshots are expired too, the whole table is."""
    spark, config = catalog_spark, lakeops_config
    create_tables(spark, config, "events")
    append_events(spark, config, BATCH1)
    _run(spark, config)
    mark = current_watermarks(_table(config, "user_activity_hourly"))["events"]
    append_events(spark, config, BATCH2)
    _compact(spark, config)
    _expire(spark, config, mark)
    plan = plan_from_catalog(load_catalog(config.catalog), config, "user_activity_hourly")
    assert plan.mode == "range" and plan.dates == (date(2026, 11, 21), date(2026, 11, 22)), plan.reason
    assert _run(spark, config).status == "committed"
    assert activity(spark, config) == activity_from_scratch(spark, config)

    append_events(spark, config, [("e7", 4, "s5", at(22, 12, 0), "click")])
    _compact(spark, config)
    events = _table(config, "events")
    older = [str(s.snapshot_id) for s in events.snapshots() if s.snapshot_id != events.current_snapshot().snapshot_id]
    spark.sql(f"CALL {config.catalog.name}.system.expire_snapshots(table => '{config.qualified('events')}', "
              f"snapshot_ids => array({', '.join(older)}))")
    assert len(_table(config, "events").snapshots()) == 1
    plan = plan_from_catalog(load_catalog(config.catalog), config, "user_activity_hourly")
    assert plan.mode == "full" and "files were removed or rewritten after the watermark" in plan.reason, plan.reason
    assert _run(spark, config).status == "committed"
    assert activity(spark, config) == activity_from_scratch(spark, config)


ORDER_COLS = ["order_id", "user_id", "status", "amount", "currency", "created_at", "updated_at",
              "user_email", "user_name", "user_country", "user_tier"]


def _orders_from_scratch(spark, config):
    return sorted_rows(from_scratch(spark, config, "orders_current"), ORDER_COLS)


# Merge-on-read sources (delete files, deletion vectors): test_user_models.py, under random histories.
@pytest.mark.parametrize("mode", ["copy-on-write"])
def test_cdc_updates_and_deletes_reach_orders_current(catalog_spark, lakeops_config, mode):
    spark, config = catalog_spark, lakeops_config
    # The changes rewrite both of the tiny source's files: read through the snapshot diff all the same.
    model = dataclasses.replace(config.model("orders_current"), full_recompute_share=0)
    config = dataclasses.replace(config, models={**config.models, "orders_current": model})
    create_tables(spark, config, "users", "orders")
    users, orders = config.qualified("users"), config.qualified("orders")
    for name in (users, orders):
        spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('write.delete.mode'='{mode}', 'write.update.mode'='{mode}', "
                  f"'write.merge.mode'='{mode}')")
    ts = at(21, 8)
    spark.createDataFrame([(1, "a@x", "A", "DE", "gold", ts, ts), (2, "b@x", "B", "FR", "free", ts, ts)],
                          "user_id bigint, email string, name string, country string, tier string, "
                          "created_at timestamp, updated_at timestamp"
                          ).writeTo(users).append()
    spark.createDataFrame([(10, 1, "new", Decimal("5.00"), "EUR", at(21, 9), at(21, 9)),
                           (11, 2, "new", Decimal("7.50"), "EUR", at(21, 9), at(21, 9)),
                           (12, 2, "new", Decimal("1.00"), "EUR", at(22, 9), at(22, 9))],
                          "order_id bigint, user_id bigint, status string, amount decimal(12,2), currency string, "
                          "created_at timestamp, updated_at timestamp").writeTo(orders).append()
    assert _run(spark, config, "orders_current").mode == "full"

    spark.sql(f"UPDATE {users} SET tier = 'platinum' WHERE user_id = 1")
    spark.sql(f"UPDATE {orders} SET status = 'paid' WHERE order_id = 11")
    spark.sql(f"DELETE FROM {orders} WHERE order_id = 12")
    spark.sql(f"DELETE FROM {users} WHERE user_id = 2")
    catalog = load_catalog(config.catalog)
    plan = plan_from_catalog(catalog, config, "orders_current")
    start, end = plan.ranges[0].start_snapshot_id, plan.ranges[0].end_snapshot_id
    changes = changelog(spark, orders, start, end, ("order_id",)).select("order_id", "status", CHANGE_TYPE).collect()
    assert sorted(tuple(r) for r in changes) == [(11, "new", "update_before"), (11, "paid", "update_after"),
                                                 (12, "new", "delete")]
    result = run_etl(spark, catalog, config, plan)
    assert (result.mode, result.status) == ("incremental", "committed")

    got = sorted_rows(spark.table(config.qualified("orders_current")), ORDER_COLS)
    assert got == _orders_from_scratch(spark, config)
    assert [(r[0], r[2], r[10]) for r in got] == [(10, "new", "platinum"), (11, "paid", None)]
    assert current_watermarks(_table(config, "orders_current")) == {
        "orders": _table(config, "orders").current_snapshot().snapshot_id,
        "users": _table(config, "users").current_snapshot().snapshot_id}
