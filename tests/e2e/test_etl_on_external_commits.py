"""A model over a table another tool writes runs when that tool commits, in a whole Airflow 3 (scheduler,
dag-processor, triggerer, api-server as processes): once the model's DAG is unpaused, its source's asset watcher
polls the table in the triggerer, a pyiceberg commit (the other tool) records an asset event, and the scheduler
starts a run that brings the model's table up to date. That run's commit, in turn, starts the run of a model over
the first model's table, through the asset its task emits."""

from __future__ import annotations

import json
import time
from datetime import datetime

import pyarrow as pa
import pytest

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from tests.e2e.airflow_services import ApiError
from tests.e2e.conftest import CHAINED_MODEL, EXTERNAL_MODEL, EXTERNAL_SOURCE

pytestmark = [pytest.mark.airflow, pytest.mark.e2e, pytest.mark.spark]

DAG_ID = f"etl.{EXTERNAL_MODEL}"
CHAINED_DAG_ID = f"etl.{CHAINED_MODEL}"
SCHEMA = pa.schema([("id", pa.int64()), ("amount", pa.int64()), ("created_at", pa.timestamp("us"))])


def _asset_events(services) -> list[dict]:
    """The 100 newest asset events, newest first. Airflow 3.3 answers 500 while a run an event created is queued,
    its start date not set yet (apache/airflow#71360): the call is repeated until that run has started."""
    def answer() -> tuple[list[dict]] | None:
        try:
            return (services.api("GET", "/api/v2/assets/events?limit=100&order_by=-timestamp")["asset_events"],)
        except ApiError as error:
            if error.code != 500:
                raise
            return None
    return services.wait_for(answer, 60, "the asset events", 1.0)[0]


def _asset_runs(services, dag_id: str = DAG_ID) -> list[dict]:
    runs = services.api("GET", f"/api/v2/dags/{dag_id}/dagRuns?limit=100")["dag_runs"]
    return [r for r in runs if r["run_type"] == "asset_triggered"]


def test_a_commit_by_another_writer_starts_the_models_run(airflow_services, spark):
    config = load_config()
    catalog = load_catalog(config.catalog)
    catalog.create_namespace_if_not_exists("lakeops")
    source = catalog.create_table(EXTERNAL_SOURCE, SCHEMA)
    source.append(pa.table({"id": [1], "amount": [10], "created_at": [datetime(2026, 11, 20, 9)]}, schema=SCHEMA))

    services = airflow_services
    services.wait_for(lambda: {DAG_ID, CHAINED_DAG_ID} <= {d["dag_id"] for d in services.api("GET", "/api/v2/dags")["dags"]},
                      timeout=180, what=f"{DAG_ID} and {CHAINED_DAG_ID} to be parsed")
    for dag_id in (DAG_ID, CHAINED_DAG_ID):
        services.api("PATCH", f"/api/v2/dags/{dag_id}", {"is_paused": False})

    # The watcher's first poll only learns where the table stands; commit until a poll after it sees one.
    next_id, deadline = 2, time.monotonic() + 300
    while not _asset_runs(services):
        assert time.monotonic() < deadline, "no asset-triggered run within 300 s" + services.logs_tail()
        source.append(pa.table({"id": [next_id], "amount": [10 * next_id], "created_at": [datetime(2026, 11, 20, 10)]},
                               schema=SCHEMA))
        next_id += 1
        time.sleep(12)
    run = services.wait_for(lambda: [r for r in _asset_runs(services) if r["state"] in ("success", "failed")],
                            420, "the asset-triggered run to end", 3.0)[0]
    assert run["state"] == "success", json.dumps(run, indent=1) + services.logs_tail()
    events = _asset_events(services)
    watched = [e for e in events if e["extra"].get("payload", {}).get("table") == EXTERNAL_SOURCE]
    assert watched, json.dumps(events, indent=1)
    committed = {e["extra"]["payload"]["snapshot_id"] for e in watched}
    assert committed <= {s.snapshot_id for s in source.refresh().snapshots()}

    # The model's table holds the source's rows as of the snapshot the run read (at least the first event's).
    first_seen = source.snapshot_by_id(min(committed, key=lambda s: source.snapshot_by_id(s).sequence_number))
    expected = set(source.scan(snapshot_id=first_seen.snapshot_id).to_arrow().column("id").to_pylist())
    spark.catalog.refreshTable(config.qualified(EXTERNAL_MODEL))
    got = {r.id for r in spark.table(config.qualified(EXTERNAL_MODEL)).select("id").collect()}
    assert expected <= got <= set(range(1, next_id))

    # The model over the copy runs once the copy's runs have committed, started by the events their task emitted.
    def emitted() -> list[dict]:
        return [e for e in _asset_events(services) if e["source_dag_id"] == DAG_ID]

    def settled() -> list[dict] | None:
        runs, chained = _asset_runs(services), _asset_runs(services, CHAINED_DAG_ID)
        if any(r["state"] not in ("success", "failed") for r in runs + chained):
            return None
        events = emitted()  # each event of the copy's task has started a run of the model over the copy
        return chained if events and all(e["created_dagruns"] for e in events) else None

    chained = services.wait_for(settled, 420, f"the runs of {CHAINED_DAG_ID} the runs of {DAG_ID} start", 3.0)
    assert [r["state"] for r in chained] == ["success"] * len(chained), json.dumps(chained, indent=1) + services.logs_tail()
    assert {e["source_task_id"] for e in emitted()} == {"etl"}
    spark.catalog.refreshTable(config.qualified(EXTERNAL_MODEL))
    copies = spark.table(config.qualified(EXTERNAL_MODEL)).collect()
    daily = config.qualified(CHAINED_MODEL)
    spark.catalog.refreshTable(daily)
    assert [(r.day, r.amount, r.orders) for r in spark.table(daily).collect()] == [
        (datetime(2026, 11, 20), sum(r.amount for r in copies), len(copies))]
