"""`lakeops etl run MODEL`: its arguments, parsed and turned into the ETL job's, on literals."""

from __future__ import annotations

import pytest

from lakeops.cli.commands.etl import job_args, render
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
