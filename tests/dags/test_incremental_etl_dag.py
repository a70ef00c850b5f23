"""The incremental_etl DAG through Airflow's dag.test(): spark-submit of spark_jobs/incremental_etl.py
on local Spark against the session's embedded catalog."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.dag_runs import load_dag, run_dag_test
from lakeops.watermark import current_watermarks
from tests.integration.etl.helpers import seed_events

pytestmark = [pytest.mark.airflow, pytest.mark.spark]

TICK = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)  # the run of 11:00-12:00


def activity_matches_events(spark, config) -> bool:
    from lakeops.spark.etl_transforms import user_activity, with_hour

    got = spark.table(config.qualified("user_activity_hourly")).drop("events_by_type")
    want = user_activity(with_hour(spark.table(config.qualified("events")))).drop("events_by_type")
    return got.exceptAll(want).isEmpty() and want.exceptAll(got).isEmpty()


def test_scheduled_run_maintains_user_activity(airflow_db, spark):
    config = load_config()
    seed_events(spark, config, [("d1", 7, "s1", datetime(2026, 11, 21, 11, 10), "click"),
                                ("d2", 7, "s1", datetime(2026, 11, 21, 11, 20), "purchase")])
    run = run_dag_test(load_dag("incremental_etl"), TICK)
    assert str(run.state) == "success"
    assert run.data_interval_start == datetime(2026, 11, 21, 11, 0, tzinfo=UTC)
    catalog = load_catalog(config.catalog)
    events = catalog.load_table(config.identifier("events"))
    downstream = catalog.load_table(config.identifier("user_activity_hourly"))
    assert current_watermarks(downstream) == {"events": events.current_snapshot().snapshot_id}
    spark.catalog.refreshTable(config.qualified("user_activity_hourly"))
    assert activity_matches_events(spark, config)
