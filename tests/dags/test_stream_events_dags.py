"""A streamed table's DAG (stream.<namespace>.<table>) in both runners through Airflow's dag.test(): each run
spark-submits spark_jobs/stream_events.py on local Spark against the embedded catalog; the query's checkpoint
carries what was read across runs."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import pytest

from lakeops.config import load_config
from lakeops.dag_runs import load_dag, run_dag_test
from lakeops.generator import generate_events
from tests.integration.streaming.conftest import streaming_config_file
from tests.integration.streaming.helpers import checkpoint_dir, committed_event_ids, micro_batch_logs, stream_commits

pytestmark = [pytest.mark.airflow, pytest.mark.spark]

ARRIVAL = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


def _own_catalog(tmp_path, monkeypatch, runner: str):
    # Its own catalog, landing zone and checkpoint: other DAG tests of the session write `events` too.
    # The spark-submit child inherits the variables. `events` is streamed (ingest.mode) in this config.
    monkeypatch.setenv("LAKEOPS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LAKEOPS_CONFIG", str(streaming_config_file(tmp_path / "lakeops.yaml", runner=runner)))
    return load_config()


@pytest.fixture()
def own_catalog(tmp_path, monkeypatch):
    return _own_catalog(tmp_path, monkeypatch, "available_now")


@pytest.fixture()
def supervised_catalog(tmp_path, monkeypatch):
    return _own_catalog(tmp_path, monkeypatch, "supervised")


def test_available_now_runs_each_commit_only_the_files_landed_since_the_last(airflow_db, own_catalog):
    config = own_catalog
    first = generate_events(config.landing_root, ARRIVAL, 3, 60, seed=31, users=200, bad_fraction=0.03)
    dag = load_dag("stream.lakeops.events")
    assert [t.task_id for t in dag.tasks] == ["stream_available_now"]

    run = run_dag_test(dag, ARRIVAL + timedelta(minutes=5))
    assert str(run.state) == "success"
    after_first = [summary for _, summary in stream_commits(config)]
    assert sum(int(s["lakeops.files"]) for s in after_first) == 3
    assert sorted(committed_event_ids(config)) == sorted(first.good_event_ids)

    second = generate_events(config.landing_root, ARRIVAL + timedelta(minutes=5), 2, 60, seed=32, users=200, bad_fraction=0)
    run = run_dag_test(dag, ARRIVAL + timedelta(minutes=10))
    assert str(run.state) == "success"

    commits = [summary for _, summary in stream_commits(config)]
    new = commits[len(after_first):]
    assert new and sum(int(s["lakeops.files"]) for s in new) == 2, "the second run read only the two new files"
    assert sum(int(s["lakeops.rows"]) for s in new) == second.good == 120
    query_ids = {s["lakeops.batch-id"].removeprefix("lakeops.events@stream-").rsplit("-", 1)[0] for s in commits}
    assert len(query_ids) == 1, "both runs continue one query from its checkpoint"
    ids = committed_event_ids(config)
    assert len(ids) == first.good + second.good and set(ids) == first.good_event_ids | second.good_event_ids


def test_supervised_run_reads_files_landed_while_it_runs_and_stops_between_micro_batches(airflow_db, supervised_catalog):
    config = supervised_catalog
    before = generate_events(config.landing_root, ARRIVAL, 1, 80, seed=41, users=200, bad_fraction=0)
    offsets = checkpoint_dir(config) / "offsets"
    during: dict = {}

    def land_once_the_query_runs():
        deadline = time.monotonic() + 300
        while not (offsets / "0").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        during["stats"] = generate_events(config.landing_root, ARRIVAL + timedelta(minutes=1), 1, 80, seed=42, users=200,
                                          bad_fraction=0)

    lander = threading.Thread(target=land_once_the_query_runs, daemon=True)
    lander.start()
    started = time.monotonic()
    dag = load_dag("stream.lakeops.events")
    assert [t.task_id for t in dag.tasks] == ["stream_supervised"]
    run = run_dag_test(dag, ARRIVAL, run_conf={"run_seconds": 60, "trigger_seconds": 2})
    lander.join(timeout=5)

    assert str(run.state) == "success"
    assert time.monotonic() - started >= 60, "the supervised run lasted its run_seconds"
    assert "stats" in during, "the second file was landed while the query ran"
    ids = committed_event_ids(config)
    assert len(ids) == 160 and set(ids) == before.good_event_ids | during["stats"].good_event_ids
    planned, done = micro_batch_logs(config)
    assert planned == done, "stopped between micro-batches: every planned micro-batch is in the commit log"
    assert len(stream_commits(config)) == len(done) >= 2
