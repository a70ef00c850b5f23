"""The DAG of the model user_activity_hourly (etl.user_activity_hourly) through Airflow's dag.test():
spark-submit of the ETL job on local Spark against the session's embedded catalog."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.dag_runs import load_dag, run_dag_test
from lakeops.watermark import current_watermarks
from tests.integration.etl.helpers import from_scratch, seed_events

pytestmark = [pytest.mark.airflow, pytest.mark.spark]

TICK = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def activity_matches_events(spark, config) -> bool:
    got = spark.table(config.qualified("user_activity_hourly")).drop("events_by_type")
    want = from_scratch(spark, config, "user_activity_hourly").drop("events_by_type")
    return got.exceptAll(want).isEmpty() and want.exceptAll(got).isEmpty()


def test_scheduled_run_maintains_user_activity(airflow_db, spark):
    config = load_config()
    seed_events(spark, config, [("d1", 7, "s1", datetime(2026, 11, 21, 11, 10), "click"),
                                ("d2", 7, "s1", datetime(2026, 11, 21, 11, 20), "purchase")])
    run = run_dag_test(load_dag("etl.user_activity_hourly"), TICK)
    assert str(run.state) == "success"
    catalog = load_catalog(config.catalog)
    events = catalog.load_table(config.identifier("events"))
    downstream = catalog.load_table(config.identifier("user_activity_hourly"))
    assert current_watermarks(downstream) == {"events": events.current_snapshot().snapshot_id}
    spark.catalog.refreshTable(config.qualified("user_activity_hourly"))
    assert activity_matches_events(spark, config)


def _assets_emitted_by(run) -> list[str]:
    """The names of the assets whose events the run's tasks emitted."""
    from airflow.models.asset import AssetEvent
    from airflow.utils.session import create_session

    with create_session() as session:
        events = session.query(AssetEvent).filter(AssetEvent.source_run_id == run.run_id,
                                                  AssetEvent.source_dag_id == run.dag_id).all()
        return [e.asset.name for e in events]


def test_a_run_whose_sources_did_not_move_starts_no_spark_job_and_emits_no_event(airflow_db, spark):
    from lakeops.etl.tasks import run_has_work

    config = load_config()
    seed_events(spark, config, [("e1", 8, "s1", datetime(2026, 11, 21, 11, 10), "click")])
    dag = load_dag("etl.user_activity_hourly")
    first = run_dag_test(dag, TICK)
    assert {ti.task_id: str(ti.state) for ti in first.get_task_instances()} == {"has_work": "success", "etl": "success"}
    assert _assets_emitted_by(first) == ["lakeops.table.lakeops.user_activity_hourly"]
    downstream = load_catalog(config.catalog).load_table(config.identifier("user_activity_hourly"))
    snapshot = downstream.current_snapshot().snapshot_id

    again = run_dag_test(dag, datetime(2026, 11, 21, 13, 0, tzinfo=UTC))
    assert str(again.state) == "success"
    assert {ti.task_id: str(ti.state) for ti in again.get_task_instances()} == {"has_work": "success", "etl": "skipped"}
    assert _assets_emitted_by(again) == []
    assert downstream.refresh().current_snapshot().snapshot_id == snapshot
    # A full recompute and a backfill have work whatever the sources did.
    assert run_has_work("user_activity_hourly", True, "manual", None, None, None)
    assert run_has_work("user_activity_hourly", False, "DagRunType.BACKFILL_JOB", "2026-11-21T00:00:00+00:00", None, None)
    assert not run_has_work("user_activity_hourly", False, "scheduled", None, None, None)

