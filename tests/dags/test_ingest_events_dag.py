"""The ingest_events DAG end to end through Airflow's dag.test(): SparkSubmitOperator runs
spark_jobs/ingest_events.py with spark-submit on local Spark against the embedded catalog."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.dag_runs import load_dag, run_dag_test
from lakeops.generator import generate_events

pytestmark = [pytest.mark.airflow, pytest.mark.spark]

ARRIVAL = datetime(2026, 11, 21, 10, 0, tzinfo=timezone.utc)
TICK = datetime(2026, 11, 21, 10, 5, tzinfo=timezone.utc)  # the run whose data interval is 10:00-10:05


def _event_ids(config) -> list[str]:
    table = load_catalog(config.catalog).load_table(config.identifier("events"))
    return table.scan(selected_fields=("event_id",)).to_arrow().column("event_id").to_pylist()


def test_ingest_dag_commits_every_landed_event_once(airflow_db, tmp_path, monkeypatch):
    # Its own catalog and landing zone: other DAG tests of the session write `events` too. The
    # spark-submit child inherits the variable.
    monkeypatch.setenv("LAKEOPS_DATA_DIR", str(tmp_path / "data"))
    config = load_config()
    landed = generate_events(config.landing_root, ARRIVAL, 5, 120, seed=21, bad_fraction=0.02)
    dag = load_dag("ingest_events")

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

    empty = run_dag_test(dag, datetime(2026, 11, 21, 9, 0, tzinfo=timezone.utc))
    assert str(empty.state) == "success"
    assert len(_event_ids(config)) == landed.good
