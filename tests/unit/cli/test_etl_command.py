"""`lakeops etl run MODEL`: its arguments, parsed and turned into the ETL job's, on literals."""

from __future__ import annotations

import pytest

from lakeops.cli.commands.etl import job_args, render, render_status
from lakeops.cli.parser import build_parser
from lakeops.cli.values import CliError
from lakeops.exceptions import ConfigError


def test_the_parser_takes_a_model_and_a_date_range():
    args = build_parser().parse_args(["etl", "run", "orders_current", "--from", "2026-11-20", "--to", "2026-11-21"])
    assert (args.command, args.etl_command, args.model, args.full) == ("etl", "run", "orders_current", False)
    assert (args.from_date, args.to_date) == ("2026-11-20", "2026-11-21")


def test_job_args_for_incremental_full_and_backfill():
    assert job_args("m", False, None, None) == ["--model", "m", "--from-date", "", "--to-date", "", "--full-recompute",
                                                "false"]
    assert job_args("m", True, None, None)[-1] == "true"
    assert job_args("m", False, "2026-11-20", "2026-11-21")[3:6] == ["2026-11-20", "--to-date", "2026-11-21"]


@pytest.mark.parametrize(("full", "first", "last", "error", "message"), [
    (True, "2026-11-20", "2026-11-21", CliError, "give one of them"),
    (False, "2026-11-20", None, ConfigError, "give both"),
    (False, "20.11.2026", "2026-11-21", ConfigError, "YYYY-MM-DD"),
    (False, "2026-11-22", "2026-11-21", ConfigError, "ends before it starts"),
])
def test_bad_dates_are_refused_before_spark(full, first, last, error, message):
    with pytest.raises(error, match=message):
        job_args("m", full, first, last)


def test_render_names_each_run():
    text = render({"model": "m", "result": {"models": [{"mode": "incremental", "status": "committed", "reason": "r",
                                                        "keys": 3, "snapshot_id": 9}]}})
    assert text == "model m:\n  incremental run: committed (r); 3 keys/rows recomputed, snapshot 9"


def test_render_says_when_nothing_was_done_and_whether_spark_started():
    noop = {"models": [{"mode": "noop", "status": "noop", "reason": "every source is at its watermark", "keys": 0,
                        "snapshot_id": None}]}
    assert render({"model": "m", "spark_job": False, "result": noop}) == (
        "model m:\n  nothing to do (every source is at its watermark); no Spark job started")
    assert render({"model": "m", "spark_job": True, "result": noop}) == (
        "model m:\n  nothing to do (every source is at its watermark)")


def test_the_status_parser_takes_an_optional_model():
    assert build_parser().parse_args(["etl", "status"]).model is None
    assert build_parser().parse_args(["etl", "status", "m"]).etl_command == "status"


def _source(watermark, unread, oldest=None):
    return {"name": "events", "source": "ns.events", "kind": "append", "watermark_snapshot_id": watermark,
            "current_snapshot_id": 9, "unread_commits": unread, "oldest_unread_ms": oldest}


def test_status_says_per_source_what_is_unread_and_since_when():
    now = 1_800_000_000_000
    models = [{"model": "m", "table": "ns.m", "exists": True, "snapshot_id": 5, "committed_ms": now - 30 * 60_000,
               "sources": [_source(4, 2, now - 12 * 60_000), _source(7, 0), _source(3, None), _source(None, None)],
               "lag_sla_minutes": 10, "next_run": {"mode": "incremental", "reason": "changes since the watermarks"}},
              {"model": "n", "table": "ns.n", "exists": False, "snapshot_id": None, "committed_ms": None, "sources": [],
               "next_run": {"mode": "full", "reason": "first run"}}]
    assert render_status({"models": models}, now).splitlines() == [
        "model m -> ns.m: last commit 2027-01-15 07:30:00 UTC, 30 min ago",
        "  events (ns.events, append): 2 commit(s) unread, the oldest from 2027-01-15 07:48:00 UTC, 12 min ago",
        "  events (ns.events, append): up to date",
        "  events (ns.events, append): watermark snapshot 3 is no longer in its history",
        "  events (ns.events, append): no watermark yet",
        "  lag SLA 10 min: missed (the oldest unread commit: 12 min)",
        "  next run: incremental (changes since the watermarks)",
        "model n -> ns.n: not created yet",
        "  next run: full (first run)",
    ]


def test_the_lag_sla_line_is_met_while_the_oldest_unread_commit_is_younger_and_absent_without_an_sla():
    from lakeops.etl.status import status_lines

    now = 1_800_000_000_000
    status = {"sources": [_source(4, 2, now - 12 * 60_000)], "lag_sla_minutes": 30, "next_run": {"mode": "m", "reason": "r"}}
    assert status_lines(status, now)[1] == "lag SLA 30 min: met (the oldest unread commit: 12 min)"
    assert len(status_lines({**status, "lag_sla_minutes": None}, now)) == 2
