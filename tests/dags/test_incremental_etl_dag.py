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
