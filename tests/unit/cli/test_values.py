"""Command-line values: times, hours, days, the consolidation level and the ingest jobs, on literals."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from lakeops.cli.values import (
    CliError,
    ConsolidationTarget,
    consolidation_target,
    ingest_jobs,
    parse_day,
    parse_hour,
    parse_interval,
    parse_retain_last,
    parse_time,
)


def test_times_take_a_zone_as_z_or_an_offset():
    assert parse_time("2026-11-21T10:00:00Z", "--start") == datetime(2026, 11, 21, 10, tzinfo=UTC)
    assert parse_time(" 2026-11-21T12:00+02:00 ", "--end") == datetime(2026, 11, 21, 10, tzinfo=UTC)


@pytest.mark.parametrize(("value", "message"), [
    ("yesterday", "--start 'yesterday' is not an ISO-8601 time; pass e.g. 2026-11-21T10:00:00Z"),
    ("2026-11-21T10:00", "--start '2026-11-21T10:00' has no time zone; add one, e.g. 2026-11-21T10:00:00Z or "
                         "2026-11-21T10:00:00+00:00"),
])
def test_a_time_without_a_zone_or_unparseable_is_refused_with_the_fix(value, message):
    with pytest.raises(CliError) as raised:
        parse_time(value, "--start")
    assert str(raised.value) == message


def test_an_interval_runs_forward():
    start, end = parse_interval("2026-11-21T10:00:00Z", "2026-11-21T10:05:00Z")
    assert end - start == timedelta(minutes=5)
    with pytest.raises(CliError, match="--start '2026-11-21T10:05:00Z' is not before --end '2026-11-21T10:00:00Z'"):
        parse_interval("2026-11-21T10:05:00Z", "2026-11-21T10:00:00Z")


def test_an_hour_is_on_the_hour_and_returned_in_utc():
    assert parse_hour("2026-11-21T12:00:00+02:00") == datetime(2026, 11, 21, 10, tzinfo=UTC)
    with pytest.raises(CliError, match=r"--hour '2026-11-21T10:30:00Z' is not on the hour; pass the hour it starts, "
                                       r"e.g. 2026-11-21T10:00:00\+00:00"):
        parse_hour("2026-11-21T10:30:00Z")
    assert parse_hour("2026-11-21T10:00:00-05:30").tzinfo == UTC
    assert parse_hour("2026-11-21T10:00:00-05:30") == datetime(2026, 11, 21, 10, tzinfo=timezone(timedelta(hours=-5.5)))


def test_a_day_is_a_date():
    assert parse_day("2026-11-21") == date(2026, 11, 21)
    with pytest.raises(CliError, match="--day '21/11/2026' is not a date; pass YYYY-MM-DD"):
        parse_day("21/11/2026")


def test_consolidation_takes_an_hour_or_a_day_not_both():
    assert consolidation_target("2026-11-21T10:00:00Z", None) == ConsolidationTarget(
        "hourly", "2026-11-21T10:00:00+00:00", "zonemap_hourly", ("--hour", "2026-11-21T10:00:00+00:00"))
    assert consolidation_target(None, "2026-11-21") == ConsolidationTarget(
        "daily", "2026-11-21", "zonemap_daily", ("--day", "2026-11-21"))
    with pytest.raises(CliError, match="--hour '2026-11-21T10:00:00Z' and --day '2026-11-21' were both given; pass one"):
        consolidation_target("2026-11-21T10:00:00Z", "2026-11-21")
    with pytest.raises(CliError, match="needs --hour H"):
        consolidation_target(None, None)


def test_retain_last_is_a_positive_count():
    assert parse_retain_last(None) is None
    assert parse_retain_last("3") == 3
    with pytest.raises(CliError, match="--retain-last '0' must be at least 1"):
        parse_retain_last("0")
    with pytest.raises(CliError, match="--retain-last 'two' is not a whole number"):
        parse_retain_last("two")


PLANNED = {"table": "sales.orders", "start": "2026-11-21T10:00:00+00:00", "end": "2026-11-21T10:05:00+00:00",
           "batch_id": "sales.orders@20261121T100000Z-20261121T100500Z", "writers": 1, "writer_args": []}
INTERVAL = ["--table", "sales.orders", "--start", "2026-11-21T10:00:00+00:00", "--end", "2026-11-21T10:05:00+00:00"]


def test_ingest_runs_one_job_for_cdc_and_direct_events_and_one_per_writer_when_staged():
    assert ingest_jobs("cdc", {**PLANNED, "mode": "direct"}) == [("ingest_cdc", INTERVAL)]
    assert ingest_jobs("events", {**PLANNED, "mode": "direct"}) == [("ingest_events", INTERVAL)]
    shares = [[*INTERVAL, "--writer", str(k), "--writers", "2"] for k in range(2)]
    assert ingest_jobs("events", {**PLANNED, "mode": "staged", "writers": 2, "writer_args": shares}) == [
        ("stage_events", shares[0]), ("stage_events", shares[1])]
    assert ingest_jobs("events", {**PLANNED, "mode": "staged", "writer_args": []}) == []  # committed: the committer cleans up


def test_a_streamed_table_is_not_ingested_in_batches():
    with pytest.raises(CliError, match="table sales.orders has ingest.mode streaming"):
        ingest_jobs("events", {**PLANNED, "mode": "streaming"})

