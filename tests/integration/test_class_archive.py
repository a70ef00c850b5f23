"""lakeops.class_archive with a real JVM: the archive `make setup` trains is mapped by a lakeops spark-submit's
driver, and a damaged archive, which would stop every JVM given it, is refused before it is installed."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from lakeops.class_archive import ARCHIVE_ENV, ARCHIVE_NAME, DRIVER_OPTIONS, TRAINING_TABLE, check_archive, training_config
from lakeops.cli.master import job_environment
from lakeops.exceptions import SetupError
from lakeops.runtime import jars_dir, spark_submit_command

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def setup_archive() -> Path:
    directory = jars_dir()
    archive = directory / ARCHIVE_NAME if directory is not None else None
    assert archive is not None and archive.is_file(), "`make setup` builds the class archive into the jars folder"
    return archive


def test_a_lakeops_driver_maps_the_archive_set_up_trained(setup_archive, tmp_path, monkeypatch):
    monkeypatch.setenv(ARCHIVE_ENV, str(setup_archive))
    config = tmp_path / "lakeops.yaml"
    config.write_text(yaml.safe_dump(training_config(tmp_path)))
    start = datetime.now(UTC).replace(second=0, microsecond=0)
    loaded = tmp_path / "classes.log"
    command = spark_submit_command("ingest_events", [
        "--table", TRAINING_TABLE, "--start", start.isoformat(), "--end", (start + timedelta(minutes=1)).isoformat(),
        "--config", str(config)], tmp_path, conf={DRIVER_OPTIONS: f"-Xlog:class+load=info:file={loaded}"})
    # The suite's own JVM options name the suite's archive: this driver gets only what lakeops gives it.
    env = job_environment({key: value for key, value in os.environ.items() if key != "SPARK_SUBMIT_OPTS"},
                          sys.executable, str(config))
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert '"status": "no_input"' in done.stdout  # nothing landed: the run starts Spark, lists and stops
    lines = loaded.read_text().splitlines()
    shared = sum("source: shared objects file" in line for line in lines)
    assert shared > 0.8 * len(lines), f"{shared} of {len(lines)} classes came from the archive"
    assert "Unable to use shared archive" not in done.stdout + done.stderr


def test_a_damaged_archive_is_refused(setup_archive, tmp_path):
    check_archive(setup_archive)
    damaged = tmp_path / "damaged.jsa"
    with setup_archive.open("rb") as whole:
        damaged.write_bytes(whole.read(1_000_000))
    with pytest.raises(SetupError, match="stops the JVM"):
        check_archive(damaged)
    assert not list(tmp_path.glob("hs_err*")) and not list(Path.cwd().glob("hs_err*"))
