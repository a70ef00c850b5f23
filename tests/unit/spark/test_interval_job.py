"""lakeops.spark.interval_job: the arguments every interval entry point takes, and a bad interval
refused with exit code 2 before Spark starts. The path that starts Spark runs for real in the DAG
tests (tests/dags/test_ingest_*_dag.py spark-submit these entry points)."""

from __future__ import annotations

import logging

import pytest
import yaml

from lakeops.spark.interval_job import interval_parser, run_interval_job
from tests.conftest import config_data


def test_parser_takes_the_interval_and_an_optional_config():
    args = interval_parser("d").parse_args(["--table", "orders", "--start", "2026-11-21T10:00:00+00:00",
                                            "--end", "2026-11-21T10:05:00+00:00"])
    assert (args.table, args.start, args.end, args.config) == (
        "orders", "2026-11-21T10:00:00+00:00", "2026-11-21T10:05:00+00:00", None)


@pytest.mark.parametrize("missing", ["--table", "--start", "--end"])
def test_parser_refuses_a_missing_argument(missing, capsys):
    argv = {"--table": "orders", "--start": "2026-11-21T10:00:00+00:00", "--end": "2026-11-21T10:05:00+00:00"}
    del argv[missing]
    with pytest.raises(SystemExit) as exit_info:
        interval_parser("d").parse_args([part for pair in argv.items() for part in pair])
    assert exit_info.value.code == 2
    assert missing in capsys.readouterr().err


@pytest.mark.parametrize(("table", "start", "end", "message"), [
    ("orders", "2026-11-21T10:05:00+00:00", "2026-11-21T10:00:00+00:00", "is not before end"),
    ("orders", "2026-11-21T10:00:00", "2026-11-21T10:05:00", "has no time zone"),
    ("nosuch", "2026-11-21T10:00:00+00:00", "2026-11-21T10:05:00+00:00", "nosuch"),
])
def test_a_bad_interval_exits_2_before_spark_starts(tmp_path, caplog, table, start, end, message):
    config_file = tmp_path / "lakeops.yaml"
    config_file.write_text(yaml.safe_dump(config_data(tmp_path)))
    args = interval_parser("d").parse_args(["--table", table, "--start", start, "--end", end,
                                            "--config", str(config_file)])
    called = []
    with caplog.at_level(logging.ERROR, logger="lakeops.job"):
        code = run_interval_job(args, "lakeops test", lambda *a: called.append(a))
    assert code == 2
    assert called == []
    assert message in caplog.text
