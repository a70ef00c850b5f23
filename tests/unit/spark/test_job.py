"""lakeops.spark.job.run_job: one result line on stdout and clear exit codes."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from datetime import UTC, datetime

import pytest

from lakeops.exceptions import ConfigError, IngestError, LakeopsError, SetupError
from lakeops.spark.job import RESULT_PREFIX, run_job


def result_lines(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith(RESULT_PREFIX)]


def test_result_prefix():
    assert RESULT_PREFIX == "LAKEOPS_RESULT "


def test_success_prints_one_json_result_line_and_returns_0(capsys):
    code = run_job(lambda: {"table": "lakeops.lakeops.events", "rows": 3, "files": ["a", "b"]})
    assert code == 0
    lines = result_lines(capsys.readouterr().out)
    assert len(lines) == 1
    assert json.loads(lines[0].removeprefix(RESULT_PREFIX)) == {"table": "lakeops.lakeops.events", "rows": 3, "files": ["a", "b"]}


def test_values_json_cannot_encode_are_written_as_strings(capsys):
    assert run_job(lambda: {"at": datetime(2026, 11, 21, 10, 0, tzinfo=UTC)}) == 0
    (line,) = result_lines(capsys.readouterr().out)
    assert json.loads(line.removeprefix(RESULT_PREFIX)) == {"at": "2026-11-21 10:00:00+00:00"}


@pytest.mark.parametrize("error", [LakeopsError("bad"), ConfigError("table 'x' is not in the config file"), SetupError("no jars"),
                                   IngestError("bad batch")])
def test_lakeops_error_returns_2_without_result(capsys, caplog, error):
    def body():
        raise error

    with caplog.at_level(logging.INFO, logger="lakeops.job"):
        assert run_job(body) == 2
    assert result_lines(capsys.readouterr().out) == []
    errors = [r for r in caplog.records if r.name == "lakeops.job" and r.levelno == logging.ERROR]
    assert [r.getMessage() for r in errors] == [str(error)]


@pytest.mark.parametrize("error", [ValueError("boom"), KeyError("k"), RuntimeError("spark died"), ZeroDivisionError()])
def test_other_errors_return_1_with_traceback(capsys, caplog, error):
    def body():
        raise error

    with caplog.at_level(logging.INFO, logger="lakeops.job"):
        assert run_job(body) == 1
    assert result_lines(capsys.readouterr().out) == []
    errors = [r for r in caplog.records if r.name == "lakeops.job" and r.levelno == logging.ERROR]
    assert len(errors) == 1
    assert errors[0].getMessage() == "job failed"
    assert errors[0].exc_info is not None and errors[0].exc_info[1] is error


def test_body_runs_exactly_once(capsys):
    calls = []
    assert run_job(lambda: calls.append(1) or {}) == 0
    assert calls == [1]
    assert result_lines(capsys.readouterr().out) == [RESULT_PREFIX + "{}"]


def test_job_module_imports_nothing_from_pyspark():
    code = "import sys, lakeops.spark.job; print(sorted(m for m in sys.modules if m.split('.')[0] == 'pyspark'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_result_line_in_a_real_process():
    code = (
        "import sys; from lakeops.spark.job import run_job; from lakeops.exceptions import ConfigError\n"
        "mode = sys.argv[1]\n"
        "def body():\n"
        "    if mode == 'config': raise ConfigError('bad table')\n"
        "    if mode == 'crash': raise RuntimeError('boom')\n"
        "    return {'rows': 7}\n"
        "sys.exit(run_job(body))\n"
    )
    results = {mode: subprocess.run([sys.executable, "-c", code, mode], capture_output=True, text=True)
               for mode in ("ok", "config", "crash")}
    assert results["ok"].returncode == 0
    assert result_lines(results["ok"].stdout) == ['LAKEOPS_RESULT {"rows": 7}']
    assert results["config"].returncode == 2
    assert result_lines(results["config"].stdout) == []
    assert "ERROR lakeops.job: bad table" in results["config"].stdout
    assert results["crash"].returncode == 1
    assert result_lines(results["crash"].stdout) == []
    assert "RuntimeError: boom" in results["crash"].stdout
