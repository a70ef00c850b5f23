"""`airflow backfill create` for the DAG of the model user_activity_hourly (etl.user_activity_hourly, on its
source's asset and a daily interval) against a running scheduler: the backfill run recomputes its date's
partition of the model's table and leaves the watermark alone."""

from __future__ import annotations

import json
import time
from datetime import datetime

import pytest

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.etl.inputs import plan_from_catalog
from lakeops.spark.etl import run_etl
from lakeops.watermark import current_watermarks, watermarks_of
from tests.integration.etl.helpers import seed_events

pytestmark = [pytest.mark.airflow, pytest.mark.e2e, pytest.mark.spark]

DAG_ID = "etl.user_activity_hourly"
USER = 80019  # no other test writes this user


def _cli_while_locked(services, *args: str, attempts: int, before_retry=lambda: None) -> None:
    """`airflow <args>`, tried again when SQLite refuses its write with "database is locked" (the
    scheduler holds the metadata database's write lock, or, in WAL mode, the command's transaction
    read before the scheduler's last commit and cannot upgrade to a write, which fails at once
    whatever the busy timeout); `before_retry` undoes what a refused attempt left."""
    for attempt in range(1, attempts + 1):
        try:
            services.cli(*args)
            return
        except RuntimeError as e:
            if "database is locked" not in str(e) or attempt == attempts:
                raise
        before_retry()
        time.sleep(2)


def _cancel_open_backfills(services) -> None:
    """Airflow commits a backfill before its runs and removes it after a lock error on Postgres and
    MySQL only: on SQLite a refused `backfill create` leaves one without runs, which would make the
    next attempt fail (one running backfill per DAG)."""
    for backfill in services.api("GET", f"/api/v2/backfills?dag_id={DAG_ID}")["backfills"]:
        if backfill.get("completed_at") is None:
            services.api("PUT", f"/api/v2/backfills/{backfill['id']}/cancel")


def test_backfill_create_recomputes_the_date(airflow_services, spark):
    config = load_config()
    seed_events(spark, config, [("b1", USER, "s8", datetime(2026, 11, 19, 10, 15), "search"),
                                ("b2", USER, "s8", datetime(2026, 11, 19, 10, 45), "click")])
    catalog = load_catalog(config.catalog)
    # An incremental pass first, so the table has a watermark: on a table without one, any run
    # (a backfill too) is a full first run.
    run_etl(spark, catalog, config, plan_from_catalog(catalog, config, "user_activity_hourly"))
    before = current_watermarks(catalog.load_table(config.identifier("user_activity_hourly")))
    assert before, "the incremental pass left no watermark"
    # Lose the user's row downstream: an incremental run has nothing new to read for it, only a
    # recompute of the date from the source brings it back.
    spark.sql(f"DELETE FROM {config.qualified('user_activity_hourly')} WHERE user_id = {USER}")

    services = airflow_services
    services.wait_for(lambda: any(d["dag_id"] == DAG_ID for d in services.api("GET", "/api/v2/dags")["dags"]),
                      timeout=180, what=f"{DAG_ID} to be parsed")
    _cli_while_locked(services, "backfill", "create", "--dag-id", DAG_ID, "--from-date", "2026-11-19T00:00:00+00:00",
                      "--to-date", "2026-11-19T00:00:00+00:00", "--reprocess-behavior", "completed", attempts=3,
                      before_retry=lambda: _cancel_open_backfills(services))
    # The scheduler queues no task of a paused DAG, backfill runs included, and the fixture starts
    # every DAG paused. Unpaused, the DAG also gets its latest scheduled run: the watermark checks
    # below allow for it (it may move the watermark forwards, never backwards).
    _cli_while_locked(services, "dags", "unpause", DAG_ID, attempts=5)

    def finished():
        runs = services.api("GET", f"/api/v2/dags/{DAG_ID}/dagRuns?run_type=backfill")["dag_runs"]
        return runs if runs and all(r["state"] in ("success", "failed") for r in runs) else None

    runs = services.wait_for(finished, timeout=420, what="the backfill runs to finish", interval=3)
    assert {r["state"] for r in runs} == {"success"}, json.dumps(runs, indent=1) + services.logs_tail()
    assert all(r["run_type"] == "backfill" for r in runs)

    catalog = load_catalog(config.catalog)
    downstream = catalog.load_table(config.identifier("user_activity_hourly"))
    backfilled = [s.summary.additional_properties for s in downstream.snapshots()
                  if s.summary and s.summary.additional_properties.get("lakeops.etl-dates") == "2026-11-19"]
    assert backfilled, "no commit of the backfilled date; downstream commits: " + json.dumps(
        [s.summary.additional_properties for s in downstream.snapshots() if s.summary]) + _task_logs(services)
    assert all(watermarks_of(props) == {} for props in backfilled), "a backfill commit must carry no watermark"
    after = current_watermarks(downstream)
    for source, snapshot_id in before.items():
        source_table = catalog.load_table(config.identifier(source))
        assert _sequence(source_table, after[source]) >= _sequence(source_table, snapshot_id), f"{source} moved backwards"
    spark.catalog.refreshTable(config.qualified("user_activity_hourly"))
    rows = spark.table(config.qualified("user_activity_hourly")).where(f"user_id = {USER}").collect()
    assert [(r.events, r.sessions) for r in rows] == [(2, 1)]


def _sequence(table, snapshot_id: int) -> int:
    snapshot = table.snapshot_by_id(snapshot_id)
    assert snapshot is not None, f"watermark snapshot {snapshot_id} is gone from {table.name()}"
    return snapshot.sequence_number


def _task_logs(services, chars: int = 4000) -> str:
    """The end of every task log of the DAG, for a failure message."""
    logs = sorted((services.home / "logs").rglob(f"*{DAG_ID}*/**/*.log")) if (services.home / "logs").exists() else []
    return "".join(f"\n--- {p}\n{p.read_text(errors='replace')[-chars:]}" for p in logs)
