"""The events table's ingest DAG (ingest.lakeops.events) end to end through Airflow's dag.test(): SparkSubmitOperator runs
spark_jobs/ingest_events.py with spark-submit on local Spark against the embedded catalog."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import yaml

from benchmarks.common import shipped_config
from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.dag_runs import load_dag, run_dag_test
from lakeops.generator import generate_events

pytestmark = [pytest.mark.airflow, pytest.mark.spark]

ARRIVAL = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
TICK = datetime(2026, 11, 21, 10, 5, tzinfo=UTC)  # the run whose data interval is 10:00-10:05


def _event_ids(config) -> list[str]:
    table = load_catalog(config.catalog).load_table(config.identifier("events"))
    return table.scan(selected_fields=("event_id",)).to_arrow().column("event_id").to_pylist()


def test_ingest_dag_commits_every_landed_event_once(airflow_db, tmp_path, monkeypatch):
    # Its own catalog and landing zone: other DAG tests of the session write `events` too. The
    # spark-submit child inherits the variable.
    monkeypatch.setenv("LAKEOPS_DATA_DIR", str(tmp_path / "data"))
    config = load_config()
    landed = generate_events(config.landing_root, ARRIVAL, 5, 120, seed=21, bad_fraction=0.02)
    dag = load_dag("ingest.lakeops.events")

    run = run_dag_test(dag, TICK)
    assert str(run.state) == "success"
    assert run.data_interval_start == ARRIVAL and run.data_interval_end == TICK
    ids = _event_ids(config)
    assert len(ids) == landed.good and set(ids) == landed.good_event_ids

    rerun = run_dag_test(dag, TICK)  # a manual re-run of the same interval
    assert str(rerun.state) == "success"
    assert sorted(_event_ids(config)) == sorted(ids)

    quarantine = load_catalog(config.catalog).load_table(config.identifier("events_quarantine"))
    assert quarantine.scan().to_arrow().num_rows == landed.bad_total

    empty = run_dag_test(dag, datetime(2026, 11, 21, 9, 0, tzinfo=UTC))
    assert str(empty.state) == "success"
    assert len(_event_ids(config)) == landed.good


def _staged_config(tmp_path, writers: int):
    """The shipped config with events in staged mode (the DAG reads it at run time, the jobs too)."""
    shipped = shipped_config()
    shipped["tables"]["lakeops.events"]["ingest"] = {"commit_mode": "staged", "writers": writers}
    path = tmp_path / "lakeops.yaml"
    path.write_text(yaml.safe_dump(shipped))
    return path


def test_staged_ingest_dag_writes_in_parallel_and_commits_once(airflow_db, tmp_path, monkeypatch):
    monkeypatch.setenv("LAKEOPS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LAKEOPS_CONFIG", str(_staged_config(tmp_path, writers=2)))
    config = load_config()
    assert config.table("events").ingest.commit_mode == "staged"
    landed = generate_events(config.landing_root, ARRIVAL, 5, 120, seed=22, bad_fraction=0.02)
    dag = load_dag("ingest.lakeops.events")

    run = run_dag_test(dag, TICK)
    assert str(run.state) == "success"
    states = {(ti.task_id, ti.map_index): str(ti.state) for ti in run.get_task_instances()}
    assert states[("ingest", -1)] == "skipped"
    assert {k: v for k, v in states.items() if k[0] == "stage"} == {("stage", 0): "success", ("stage", 1): "success"}
    assert states[("commit", -1)] == "success"
    ids = _event_ids(config)
    assert len(ids) == landed.good and set(ids) == landed.good_event_ids
    events = load_catalog(config.catalog).load_table(config.identifier("events"))
    assert len(events.snapshots()) == 1 and events.current_snapshot().summary["lakeops.writers"] == "2"

    rerun = run_dag_test(dag, TICK)  # the batch is committed: no writer runs, the committer only cleans up
    assert str(rerun.state) == "success"
    again = {(ti.task_id, ti.map_index): str(ti.state) for ti in rerun.get_task_instances()}
    assert again[("commit", -1)] == "success" and not any(k[0] == "stage" and v == "success" for k, v in again.items())
    assert sorted(_event_ids(config)) == sorted(ids)
    assert len(load_catalog(config.catalog).load_table(config.identifier("events")).snapshots()) == 1
