"""lakeops.class_archive: which archive a driver maps, how its option joins the driver's Java options, and the
training run's config and input. The archive's build and check run a JVM: tests/integration/test_class_archive.py."""

from __future__ import annotations

import json

import pytest

from lakeops.class_archive import (
    ARCHIVE_ENV,
    ARCHIVE_NAME,
    TRAINING_TABLE,
    class_archive,
    training_config,
    training_lines,
    with_class_archive,
)
from lakeops.config import load_config
from lakeops.exceptions import SetupError

DRIVER = "spark.driver.extraJavaOptions"


@pytest.fixture
def jars(tmp_path, monkeypatch):
    monkeypatch.setenv("LAKEOPS_JARS_DIR", str(tmp_path))
    return tmp_path


def test_the_archive_joins_the_drivers_java_options(tmp_path):
    archive = tmp_path / "a.jsa"
    assert with_class_archive({DRIVER: "-XX:-DontCompileHugeMethods", "spark.x": "1"}, archive) == {
        DRIVER: f"-XX:SharedArchiveFile={archive} -Xlog:disable -Xlog:all=warning:stderr -XX:-DontCompileHugeMethods",
        "spark.x": "1"}
    assert with_class_archive({}, archive) == {
        DRIVER: f"-XX:SharedArchiveFile={archive} -Xlog:disable -Xlog:all=warning:stderr"}


@pytest.mark.parametrize("options", ["-XX:SharedArchiveFile=/mine.jsa", "-XX:ArchiveClassesAtExit=/out.jsa"])
def test_a_conf_that_names_an_archive_keeps_it(tmp_path, options):
    assert with_class_archive({DRIVER: options}, tmp_path / "a.jsa") == {DRIVER: options}


def test_no_archive_leaves_the_conf_as_it_is():
    assert with_class_archive({DRIVER: "-Xss4m"}, None) == {DRIVER: "-Xss4m"}


def test_the_archive_of_the_jars_folder_is_used_once_built(jars):
    assert class_archive() is None
    (jars / ARCHIVE_NAME).write_bytes(b"archive")
    assert class_archive() == jars / ARCHIVE_NAME


def test_the_environment_names_another_archive_or_none(jars, tmp_path, monkeypatch):
    (jars / ARCHIVE_NAME).write_bytes(b"archive")
    other = tmp_path / "other.jsa"
    other.write_bytes(b"archive")
    monkeypatch.setenv(ARCHIVE_ENV, str(other))
    assert class_archive() == other
    monkeypatch.setenv(ARCHIVE_ENV, "none")
    assert class_archive() is None


def test_a_named_archive_that_is_missing_is_an_error_naming_it_and_the_fix(jars, tmp_path, monkeypatch):
    monkeypatch.setenv(ARCHIVE_ENV, str(tmp_path / "gone.jsa"))
    with pytest.raises(SetupError, match=r"gone\.jsa is not a file; build it with `python -m lakeops\.class_archive"):
        class_archive()


def test_the_training_config_is_a_valid_lakeops_config(tmp_path):
    import yaml

    path = tmp_path / "lakeops.yaml"
    path.write_text(yaml.safe_dump(training_config(tmp_path)))
    spec = load_config(path).table(TRAINING_TABLE)
    assert spec.zonemap.bloom_columns == ("user_id",)
    assert spec.ingest.mode == "batch"


def test_the_training_input_holds_good_events_and_one_line_for_the_quarantine():
    from datetime import UTC, datetime

    lines = training_lines(datetime(2026, 11, 27, tzinfo=UTC), rows=3)
    assert len(lines) == 4
    assert [json.loads(line)["user_id"] for line in lines[:3]] == [0, 1, 2]
    with pytest.raises(json.JSONDecodeError):
        json.loads(lines[3])
