"""A supervised streaming job killed for real (SIGKILL to its spark-submit process group, right after a
micro-batch's commit is seen), then restarted from its checkpoint: every good row once, every bad line
quarantined once."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from datetime import UTC, datetime

import pytest
import yaml

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.generator import generate_events
from lakeops.ingest.stream import AVAILABLE_NOW, plan_stream
from lakeops.runtime import spark_submit_command
from lakeops.spark.stream_events import run_stream
from lakeops.zonemap.micro import micro_zonemap_uri
from tests.conftest import PROJECT_ROOT, register_catalog
from tests.integration.streaming.conftest import streaming_tables
from tests.integration.streaming.helpers import committed_event_ids, micro_batch_logs, quarantined_rows, stream_commits

pytestmark = pytest.mark.spark

START = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
FILES = 4
KILL_AFTER_COMMITS = 2
WAIT_S = 420


def _config_file(tmp_path, commit_mode):
    """A config file for the spark-submit and this process: its own catalog, one file per micro-batch."""
    data = yaml.safe_load((PROJECT_ROOT / "include" / "lakeops.yaml").read_text())
    data["catalog"] = {"name": f"t{uuid.uuid4().hex[:10]}", "namespace": "lakeops", "data_dir": str(tmp_path / "data")}
    data["landing_dir"] = str(tmp_path / "landing")
    data["tables"] = streaming_tables(commit_mode, max_files_per_trigger=1)
    data.pop("models")  # not needed here; their SQL files are named relative to the shipped file
    path = tmp_path / "lakeops.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _epoch(summary: dict[str, str]) -> int:
    return int(summary["lakeops.batch-id"].rsplit("-", 1)[1])


@pytest.mark.parametrize("commit_mode", ["direct", "staged"])
def test_stream_killed_with_sigkill_and_restarted_commits_every_row_once(spark, tmp_path, commit_mode):
    config_path = _config_file(tmp_path, commit_mode)
    config = load_config(config_path)
    landed = generate_events(config.landing_root, START, FILES, 60, seed=51, users=200, bad_fraction=0.05)
    command = spark_submit_command("stream_events", ["--table", "events", "--mode", "supervised", "--run-seconds", "600",
                                                     "--trigger-seconds", "1", "--config", str(config_path)], tmp_path)
    log_path = tmp_path / "stream.log"
    with open(log_path, "w") as log:
        job = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + WAIT_S
        while len(stream_commits(config)) < KILL_AFTER_COMMITS:
            assert job.poll() is None, f"the streaming job exited early ({job.returncode}):\n{log_path.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"no {KILL_AFTER_COMMITS} commits in {WAIT_S} s:\n{log_path.read_text()[-3000:]}"
            time.sleep(0.05)
        os.killpg(job.pid, signal.SIGKILL)  # the driver JVM and its Python process, at once
    finally:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
        job.wait()
    assert job.returncode == -signal.SIGKILL

    published = {_epoch(summary) for _, summary in stream_commits(config)}
    planned, done = micro_batch_logs(config)
    replay = published - done
    print(f"\nkilled with {len(published)} micro-batches published to Iceberg, offsets log {sorted(planned)}, "
          f"commit log {sorted(done)}: {len(replay)} published micro-batch(es) to replay")
    assert len(published) < FILES, "killed mid-way: files are left for the restart"

    restarted = run_stream(register_catalog(spark, config), config, plan_stream(config, "events", AVAILABLE_NOW))

    assert restarted.already_committed == len(replay), "a published micro-batch replayed after the kill appends nothing"
    ids = committed_event_ids(config)
    assert len(ids) == landed.good and set(ids) == landed.good_event_ids, "no duplicates, no gaps"
    assert quarantined_rows(config) == landed.bad_total
    commits = stream_commits(config)
    assert sorted(_epoch(summary) for _, summary in commits) == list(range(FILES))
    assert sum(int(summary["lakeops.files"]) for _, summary in commits) == FILES
    table = load_catalog(config.catalog).load_table(config.identifier("events"))
    assert all(table.io.new_input(micro_zonemap_uri(table, snapshot_id)).exists() for snapshot_id, _ in commits), \
        "every micro-batch commit has its micro zonemap, also one killed before writing it (the replay writes it)"
