"""lakeops.runtime.spark_submit_command: the command line of a job outside Airflow, as data."""

from __future__ import annotations

import pytest

from lakeops.exceptions import SetupError
from lakeops.runtime import PROJECT_ROOT, REQUIRED_JARS, spark_submit_command


@pytest.fixture
def jars(tmp_path, monkeypatch):
    folder = tmp_path / "jars"
    folder.mkdir()
    for name in REQUIRED_JARS:
        (folder / f"{name}-1.0.jar").write_text("")
    monkeypatch.setenv("LAKEOPS_JARS_DIR", str(folder))
    monkeypatch.setenv("LAKEOPS_PY_FILES", "/opt/lakeops/lakeops.zip")
    return folder


def test_spark_submit_command(jars, tmp_path):
    assert spark_submit_command("stream_events", ["--table", "events", "--mode", "supervised"], tmp_path) == [
        "spark-submit", "--master", "local[2]", "--name", "lakeops stream_events", "--conf", "spark.log.level=WARN",
        "--jars", ",".join(str(jars / f"{name}-1.0.jar") for name in sorted(REQUIRED_JARS)),
        "--py-files", "/opt/lakeops/lakeops.zip", str(PROJECT_ROOT / "spark_jobs" / "stream_events.py"),
        "--table", "events", "--mode", "supervised",
    ]


def test_spark_submit_command_builds_the_library_archive_when_none_is_given(jars, tmp_path, monkeypatch):
    monkeypatch.delenv("LAKEOPS_PY_FILES")
    command = spark_submit_command("ingest_events", [], tmp_path / "work", master="spark://host:7077")
    assert command[1:3] == ["--master", "spark://host:7077"]
    archive = command[command.index("--py-files") + 1]
    assert archive == str(tmp_path / "work" / "lakeops.zip") and (tmp_path / "work" / "lakeops.zip").stat().st_size > 0


def test_spark_submit_command_without_jars_names_the_set_up_step(tmp_path, monkeypatch):
    monkeypatch.setenv("LAKEOPS_JARS_DIR", str(tmp_path / "none"))
    with pytest.raises(SetupError, match="run `make setup`"):
        spark_submit_command("stream_events", [], tmp_path)
