from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime

import pytest

from lakeops.config.models import ModelConfig, ModelSourceConfig
from lakeops.etl.plan import (
    EtlPlan,
    SourceRange,
    SourceState,
    choose_backfill_dates,
    dates_between,
    day_bounds,
    days_are_partitions,
    full_is_cheaper,
    hour_spans,
    period_spans,
    plan_etl,
    span_condition,
)
from lakeops.exceptions import ConfigError

ACTIVITY = ModelConfig("activity", python="models:activity", key=("user_id", "hour"), partition_column="hour",
                       sources={"events": ModelSourceConfig(kind="append")})
ORDERS = ModelConfig("orders_now", python="models:orders", key=("order_id",), partition_column="created_at",
                     recompute_by=("user_id",),
                     sources={"orders": ModelSourceConfig(kind="changelog"), "users": ModelSourceConfig(kind="changelog")})
EVENTS = SourceState("events", 30, frozenset({10, 20, 30}), {20: ("append", "replace")})


def test_incremental_range_from_the_watermark():
    plan = plan_etl(ACTIVITY, {"events": 20}, {"events": EVENTS})
    assert plan.mode == "incremental"
    assert plan.ranges == (SourceRange("events", 20, 30),)
    assert plan.new_watermarks == {"events": 30}


def test_no_change_is_a_noop():
    state = SourceState("events", 30, frozenset({30}), {30: ()})
    assert plan_etl(ACTIVITY, {"events": 30}, {"events": state}).mode == "noop"


def test_commits_that_changed_no_row_since_the_watermark_are_a_noop():
    compacted = SourceState("events", 30, frozenset({20, 30}), {20: ()})  # only replace or empty commits since 20
    plan = plan_etl(ACTIVITY, {"events": 20}, {"events": compacted})
    assert plan.mode == "noop" and "no source changed a row" in plan.reason
    assert plan.new_watermarks == {}


def test_first_run_is_full():
    plan = plan_etl(ACTIVITY, {}, {"events": EVENTS})
    assert plan.mode == "full" and plan.ranges == (SourceRange("events", None, 30),)
    assert "first run" in plan.reason and plan.new_watermarks == {"events": 30}


def test_expired_watermark_whose_changes_cannot_be_dated_recomputes_in_full():
    plan = plan_etl(ACTIVITY, {"events": 5}, {"events": EVENTS})
    assert plan.mode == "full"
    assert "watermark snapshot 5 of source events has been expired" in plan.reason
    removed = dataclasses.replace(EVENTS, changed_dates="files were removed")
    plan = plan_etl(ACTIVITY, {"events": 5}, {"events": removed})
    assert plan.mode == "full" and "cannot be dated (files were removed)" in plan.reason


def test_expired_watermark_recomputes_the_dates_changed_since_and_moves_the_watermark():
    state = dataclasses.replace(EVENTS, current_sequence_number=9, current_total_records=1200,
                                changed_dates=(date(2026, 11, 20), date(2026, 11, 21)))
    plan = plan_etl(ACTIVITY, {"events": 5}, {"events": state})
    assert plan.mode == "range" and plan.dates == (date(2026, 11, 20), date(2026, 11, 21))
    assert "2 date(s) from 2026-11-20 to 2026-11-21, which are recomputed" in plan.reason
    assert plan.new_watermarks == {"events": 30} and plan.new_watermark_facts == {"events": (9, 1200)}
    unchanged = dataclasses.replace(EVENTS, changed_dates=())
    assert plan_etl(ACTIVITY, {"events": 5}, {"events": unchanged}).mode == "noop"


def test_an_expired_watermark_on_one_source_dates_every_source():
    orders = SourceState("orders", 8, frozenset({8}), changed_dates=(date(2026, 11, 2),))
    users = SourceState("users", 3, frozenset({3}), {2: ("overwrite",)}, changed_dates=(date(2026, 11, 1),))
    plan = plan_etl(ORDERS, {"orders": 7, "users": 2}, {"orders": orders, "users": users})
    assert plan.mode == "range" and plan.dates == (date(2026, 11, 1), date(2026, 11, 2))
    assert plan.new_watermark_facts == {}  # no sequence numbers known: none recorded


def test_rewrite_of_an_append_only_source_recomputes_in_full():
    state = SourceState("events", 30, frozenset({20, 30}), {20: ("delete",)})
    plan = plan_etl(ACTIVITY, {"events": 20}, {"events": state})
    assert plan.mode == "full" and "['delete']" in plan.reason


def test_cdc_sources_may_overwrite_and_each_has_its_range():
    orders = SourceState("orders", 8, frozenset({7, 8}), {7: ("overwrite",)})
    users = SourceState("users", 3, frozenset({3}), {3: ()})
    plan = plan_etl(ORDERS, {"orders": 7, "users": 3}, {"orders": orders, "users": users})
    assert plan.mode == "incremental"
    assert plan.ranges == (SourceRange("orders", 7, 8), SourceRange("users", 3, 3))
    assert plan.new_watermarks == {"orders": 8, "users": 3}


def test_backfill_carries_no_watermark_and_sorted_dates():
    plan = plan_etl(ACTIVITY, {"events": 20}, {"events": EVENTS},
                    backfill_dates=(date(2026, 11, 3), date(2026, 11, 1)))
    assert plan.mode == "backfill" and plan.dates == (date(2026, 11, 1), date(2026, 11, 3))
    assert plan.new_watermarks == {}
    assert plan.ranges == (SourceRange("events", None, 30),)


def test_a_missing_source_state_is_refused_naming_it():
    with pytest.raises(ConfigError, match=r"no state given for source\(s\) \['users'\] of model orders_now"):
        plan_etl(ORDERS, {}, {"orders": SourceState("orders", 1)})


def test_a_source_named_by_another_table_keys_its_watermark_by_that_table():
    model = ModelConfig("m", python="models:m", key=("id",), partition_column="day",
                        sources={"clicks": ModelSourceConfig(table="web.clicks", kind="append")})
    state = SourceState("web.clicks", 9, frozenset({4, 9}), {4: ("append",)})
    plan = plan_etl(model, {"web.clicks": 4}, {"web.clicks": state})
    assert plan.ranges == (SourceRange("web.clicks", 4, 9),) and plan.new_watermarks == {"web.clicks": 9}


def test_period_spans_by_hour_and_by_day():
    values = [datetime(2026, 11, 21, 10, 30), datetime(2026, 11, 21, 11, 5), datetime(2026, 11, 23, 1)]
    assert period_spans(values, "hour") == [(datetime(2026, 11, 21, 10), datetime(2026, 11, 21, 12)),
                                            (datetime(2026, 11, 23, 1), datetime(2026, 11, 23, 2))]
    assert period_spans(values, "day") == [(datetime(2026, 11, 21), datetime(2026, 11, 22)),
                                           (datetime(2026, 11, 23), datetime(2026, 11, 24))]
    # A DATE partition column's values are dates.
    assert period_spans([date(2026, 11, 22), date(2026, 11, 21)], "day") == [(datetime(2026, 11, 21), datetime(2026, 11, 23))]


def test_dates_between_and_day_bounds():
    assert dates_between(date(2026, 11, 30), date(2026, 12, 2)) == (date(2026, 11, 30), date(2026, 12, 1), date(2026, 12, 2))
    with pytest.raises(ConfigError, match="ends before it starts"):
        dates_between(date(2026, 11, 2), date(2026, 11, 1))
    with pytest.raises(ConfigError, match="split it"):
        dates_between(date(2025, 1, 1), date(2026, 11, 1))
    assert day_bounds((date(2026, 11, 3), date(2026, 11, 1), date(2026, 11, 2), date(2026, 11, 5))) == [
        (datetime(2026, 11, 1), datetime(2026, 11, 4)), (datetime(2026, 11, 5), datetime(2026, 11, 6))]


def test_choose_backfill_dates():
    assert choose_backfill_dates("scheduled", "2026-11-21T10:00:00+00:00", None, None) == ()
    assert choose_backfill_dates("backfill", "2026-11-21T10:00:00+00:00", None, None) == (date(2026, 11, 21),)
    assert choose_backfill_dates("DagRunType.BACKFILL", "2026-11-21T10:00:00+00:00", None, None) == (date(2026, 11, 21),)
    assert choose_backfill_dates("DagRunType.SCHEDULED", "2026-11-21T10:00:00+00:00", None, None) == ()
    assert choose_backfill_dates("manual", None, "2026-11-20", "2026-11-21") == (date(2026, 11, 20), date(2026, 11, 21))
    with pytest.raises(ConfigError, match="give both"):
        choose_backfill_dates("manual", None, "2026-11-20", None)
    with pytest.raises(ConfigError, match="YYYY-MM-DD"):
        choose_backfill_dates("manual", None, "20.11.2026", "2026-11-21")
    with pytest.raises(ConfigError, match="no data interval"):
        choose_backfill_dates("backfill", None, None, None)


def test_plan_as_dict_is_plain():
    plan = EtlPlan("user_activity_hourly", "backfill", (SourceRange("events", None, 30),), (date(2026, 11, 1),), "r")
    assert plan.as_dict() == {"model": "user_activity_hourly", "mode": "backfill", "reason": "r", "dates": ["2026-11-01"],
                              "ranges": [{"source": "events", "start": None, "end": 30}]}


def test_hour_spans_merge_consecutive_hours():
    h = [datetime(2026, 11, 21, 10), datetime(2026, 11, 21, 9), datetime(2026, 11, 21, 13), datetime(2026, 11, 21, 10)]
    assert hour_spans(h) == [(datetime(2026, 11, 21, 9), datetime(2026, 11, 21, 11)),
                             (datetime(2026, 11, 21, 13), datetime(2026, 11, 21, 14))]


def test_span_condition_bounds_every_span_in_epoch_micros():
    spans = [(datetime(2026, 11, 21, 10, tzinfo=UTC), datetime(2026, 11, 21, 12, tzinfo=UTC)),
             (datetime(2026, 11, 22, 9, tzinfo=UTC), datetime(2026, 11, 22, 10, tzinfo=UTC))]
    assert span_condition("t.hour", spans) == (
        "(t.hour >= TIMESTAMP_MICROS(1795255200000000) AND t.hour < TIMESTAMP_MICROS(1795262400000000)) OR "
        "(t.hour >= TIMESTAMP_MICROS(1795338000000000) AND t.hour < TIMESTAMP_MICROS(1795341600000000))")
    assert span_condition("t.hour", []) == "FALSE"
    # A naive bound is UTC, whatever the process's time zone.
    naive = [(datetime(2026, 11, 21, 10), datetime(2026, 11, 21, 12))]
    assert span_condition("t.hour", naive) == span_condition("t.hour", spans[:1])


def test_a_change_touching_most_of_a_changelog_source_recomputes_in_full():
    assert full_is_cheaper("orders", 499, 1000, 0.5) is None
    assert full_is_cheaper("orders", 10, None, 0.5) is None  # size unknown: stay incremental
    assert full_is_cheaper("orders", 10, 0, 0.5) is None
    assert full_is_cheaper("orders", 2000, 1000, 0) is None  # 0: never
    reason = full_is_cheaper("orders", 2000, 1000, 0.5)
    assert reason is not None and "orders" in reason and "200%" in reason and "1,000 live bytes" in reason
    assert full_is_cheaper("orders", 500, 1000, 0.5) is not None
    assert full_is_cheaper("orders", 500, 1000, 0.6) is None


def test_days_are_partitions_only_under_a_day_hour_or_identity_partitioning_of_the_column_in_every_spec():
    assert days_are_partitions([[("created_at", "day")]], "created_at")
    assert days_are_partitions([[("region", "identity"), ("Created_At", "hour")]], "created_at")
    assert not days_are_partitions([[("created_at", "month")]], "created_at")
    assert not days_are_partitions([[]], "created_at")  # unpartitioned
    assert not days_are_partitions([[("id", "bucket[16]")], [("created_at", "day")]], "created_at")  # an older spec
    assert not days_are_partitions([[("updated_at", "day")]], "created_at")


def test_appends_weighing_the_share_of_an_append_source_recompute_in_full():
    bulk = dataclasses.replace(EVENTS, appended_bytes=600, current_total_bytes=1000)
    plan = plan_etl(ACTIVITY, {"events": 20}, {"events": bulk})
    assert plan.mode == "full" and plan.new_watermarks == {"events": 30}
    assert "source events had 600 bytes of files appended since the watermark, 60% of its 1,000 live bytes" in plan.reason
    for state in (dataclasses.replace(EVENTS, appended_bytes=499, current_total_bytes=1000),
                  dataclasses.replace(EVENTS, appended_bytes=None, current_total_bytes=1000),  # unknown: stay incremental
                  dataclasses.replace(EVENTS, appended_bytes=600, current_total_bytes=None)):
        assert plan_etl(ACTIVITY, {"events": 20}, {"events": state}).mode == "incremental"
    assert plan_etl(dataclasses.replace(ACTIVITY, full_recompute_share=0), {"events": 20}, {"events": bulk}).mode == "incremental"
    # A changelog source's appends are weighed by its changed files instead (lakeops.spark.etl).
    users = SourceState("users", 7, frozenset({3, 7}), {3: ("append",)}, appended_bytes=900, current_total_bytes=1000)
    orders = SourceState("orders", 5, frozenset({5}), {5: ()})
    assert plan_etl(ORDERS, {"orders": 5, "users": 3}, {"orders": orders, "users": users}).mode == "incremental"
