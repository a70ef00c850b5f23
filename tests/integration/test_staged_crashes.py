"""Crashes of staged writers and of the committer, for real: the process is killed with SIGKILL at a
failpoint (lakeops.failpoints) and the next run must leave every row exactly once.

The killed writer is a real spark-submit of spark_jobs/stage_events.py; the killed committer is a
real `python -m lakeops.staging` process. The runs that follow are in-process on the shared session."""

from __future__ import annotations

import sys
import uuid
from datetime import UTC, datetime, timedelta

import pytest
import yaml

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.exceptions import IngestError
from lakeops.failpoints import COMMITTER_AFTER_COMMIT, WRITER_BEFORE_MANIFEST
from lakeops.generator import generate_events
from lakeops.ingest.plan import plan_ingest
from lakeops.runtime import spark_submit_command
from lakeops.spark.stage_events import run_stage
from lakeops.staging import store
from lakeops.staging.commit import commit_staged
from lakeops.staging.plan import batch_key, staged_data_root, staging_dir
from tests.conftest import PROJECT_ROOT, register_catalog
from tests.crash import kill_at_failpoint

pytestmark = pytest.mark.spark

START = datetime(2026, 11, 22, 8, 0, tzinfo=UTC)
END = START + timedelta(minutes=5)


@pytest.fixture()
def setup(spark, tmp_path):
    """A config file of its own (the killed processes read it), its catalog on the shared session, landed events."""
    tables = yaml.safe_load((PROJECT_ROOT / "include" / "lakeops.yaml").read_text())["tables"]
    tables["lakeops.events"]["ingest"] = {"commit_mode": "staged", "writers": 2}
    path = tmp_path / "lakeops.yaml"
    path.write_text(yaml.safe_dump({"catalog": {"name": f"t{uuid.uuid4().hex[:10]}",
                                                "namespace": "lakeops", "data_dir": str(tmp_path / "data")},
                                    "tables": {"events": tables["lakeops.events"]}}))
    config = load_config(path)
    register_catalog(spark, config)
    landed = generate_events(config.landing_root, START, 5, 60, seed=5, bad_fraction=0.05)
    return path, config, landed, plan_ingest(config, "events", START, END)


def _event_ids(config):
    table = load_catalog(config.catalog).load_table("lakeops.events")
    return table.scan(selected_fields=("event_id",)).to_arrow().column("event_id").to_pylist()


def _events(config):
    return load_catalog(config.catalog).load_table("lakeops.events")


def test_writer_killed_mid_write_leaves_nothing_visible_and_its_rerun_commits_every_row_once(spark, setup, tmp_path):
    path, config, landed, plan = setup
    run_stage(spark, config, "events", plan, 0, 2)
    submit = spark_submit_command("stage_events", ["--table", "events", "--start", START.isoformat(), "--end", END.isoformat(),
                                                   "--writer", "1", "--writers", "2", "--config", str(path)],
                                  tmp_path, master="local[1]")

    kill_at_failpoint(submit, WRITER_BEFORE_MANIFEST, tmp_path)

    key = batch_key("lakeops.events", plan.batch_id)
    location = _events(config).location()
    dead_files = store.list_tree(staged_data_root(location, key))
    assert any("/w001-" in p for p in dead_files), "the killed writer had written data files"
    assert _events(config).current_snapshot() is None, "nothing of it is visible"
    with pytest.raises(IngestError, match=r"writers \[1\] of 2 have published no manifest"):
        commit_staged(config, "events", plan, 2)
    assert _events(config).current_snapshot() is None, "the committer commits nothing without every manifest"

    run_stage(spark, config, "events", plan, 1, 2)
    result = commit_staged(config, "events", plan, 2)

    ids = _event_ids(config)
    assert result.status == "committed" and len(ids) == len(set(ids)) == landed.good and set(ids) == landed.good_event_ids
    committed = {store.fs_path(t.file.file_path) for t in _events(config).scan().plan_files()}
    assert set(store.list_tree(staged_data_root(location, key))) == committed, "the dead attempt's files are deleted"
    assert not any(p in committed for p in dead_files if "/w001-" in p), "no file of the killed writer is committed"


def test_committer_killed_after_commit_before_cleanup_reruns_without_duplicates(spark, setup, tmp_path):
    path, config, landed, plan = setup
    for writer in (0, 1):
        run_stage(spark, config, "events", plan, writer, 2)
    command = [sys.executable, "-m", "lakeops.staging", "--table", "events", "--start", START.isoformat(),
               "--end", END.isoformat(), "--writers", "2", "--config", str(path)]

    kill_at_failpoint(command, COMMITTER_AFTER_COMMIT, tmp_path)

    key = batch_key("lakeops.events", plan.batch_id)
    events = _events(config)
    assert len(_event_ids(config)) == landed.good, "the commit landed before the kill"
    assert store.list_tree(staging_dir(events.location(), key)), "the kill left the manifests behind"
    snapshots = len(events.snapshots())

    rerun = commit_staged(config, "events", plan, 2)

    ids = _event_ids(config)
    assert rerun.status == "already_committed" and len(_events(config).snapshots()) == snapshots
    assert len(ids) == len(set(ids)) == landed.good and set(ids) == landed.good_event_ids
    quarantine = load_catalog(config.catalog).load_table("lakeops.events_quarantine")
    assert quarantine.scan().to_arrow().num_rows == landed.bad_total
    assert store.list_tree(staging_dir(events.location(), key)) == {}, "the rerun cleaned the staging"
    committed = {store.fs_path(t.file.file_path) for t in events.scan().plan_files()}
    assert set(store.list_tree(staged_data_root(events.location(), key))) == committed
