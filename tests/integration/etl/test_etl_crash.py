"""Exactly once under a real crash: spark-submit spark_jobs/incremental_etl.py (the command the
DAG's operator runs, on local Spark) and SIGKILL its whole process group, first after the data
is written and staged but before the publishing commit, then after the commit but before the job
reports. The job stops at each point through its failpoint (LAKEOPS_FAILPOINT), so the kill lands
at a known step. After each crash and its retry the downstream table equals a recompute from
scratch."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from lakeops.batches import published_snapshot
from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.etl.inputs import plan_from_catalog
from lakeops.failpoints import ETL_AFTER_PUBLISH, ETL_BEFORE_PUBLISH
from lakeops.runtime import spark_submit_command
from lakeops.spark.etl import run_etl, run_id
from lakeops.spark.job import RESULT_PREFIX
from lakeops.watermark import current_watermarks
from tests.conftest import config_data, register_catalog
from tests.crash import kill_at_failpoint
from tests.integration.etl.helpers import BATCH1, BATCH2, activity, activity_from_scratch, append_events, create_tables

pytestmark = pytest.mark.spark
TABLE = "user_activity_hourly"


def _etl_job(config_path: Path, work: Path) -> list[str]:
    """spark-submit of the ETL job as the operator submits it (the jars, the library archive)."""
    return spark_submit_command("incremental_etl", ["--model", TABLE, "--config", str(config_path)], work)


def test_killed_before_and_after_the_publish_the_retries_equal_a_recompute(spark, tmp_path):
    config_path = tmp_path / "lakeops.yaml"
    config_path.write_text(yaml.safe_dump(config_data(tmp_path)))
    config = load_config(config_path)
    register_catalog(spark, config)
    create_tables(spark, config, "events")
    append_events(spark, config, BATCH1)
    catalog = load_catalog(config.catalog)
    assert run_etl(spark, catalog, config, plan_from_catalog(catalog, config, TABLE)).status == "committed"
    append_events(spark, config, BATCH2)  # holds a late event for an hour already aggregated
    downstream = catalog.load_table(config.identifier(TABLE))
    before, marks_before, head_before = activity(spark, config), current_watermarks(downstream), downstream.current_snapshot()
    plan = plan_from_catalog(catalog, config, TABLE)
    assert plan.mode == "incremental"

    # 1. Killed after the write, before the publishing commit: nothing visible, the watermark stays.
    out = kill_at_failpoint(_etl_job(config_path, tmp_path), ETL_BEFORE_PUBLISH, tmp_path)
    assert RESULT_PREFIX not in out
    downstream = catalog.load_table(config.identifier(TABLE))
    staged = [s for s in downstream.snapshots() if s.summary and s.summary.get("wap.id") == run_id(plan)]
    assert len(staged) == 1, "the job was killed after staging its snapshot"
    assert downstream.current_snapshot().snapshot_id == head_before.snapshot_id
    assert published_snapshot(downstream, run_id(plan)) is None
    assert current_watermarks(downstream) == marks_before
    spark.catalog.refreshTable(config.qualified(TABLE))
    assert activity(spark, config) == before

    # 2. The retry stages its own snapshot and publishes it, then is killed before it reports.
    out = kill_at_failpoint(_etl_job(config_path, tmp_path), ETL_AFTER_PUBLISH, tmp_path)
    assert RESULT_PREFIX not in out
    downstream = catalog.load_table(config.identifier(TABLE))
    published = published_snapshot(downstream, run_id(plan))
    assert published is not None and downstream.current_snapshot().snapshot_id == published
    assert current_watermarks(downstream) == {"events": plan.ranges[0].end_snapshot_id}
    spark.catalog.refreshTable(config.qualified(TABLE))
    assert activity(spark, config) == activity_from_scratch(spark, config) != before
    snapshots = len(downstream.snapshots())

    # 3. Retries of the run whose commit landed: planned again (an Airflow retry) there is nothing
    # left to do; with the killed run's own plan, its identity is found published. No new commit.
    assert run_etl(spark, catalog, config, plan_from_catalog(catalog, config, TABLE)).status == "noop"
    again = run_etl(spark, catalog, config, plan)
    assert (again.status, again.snapshot_id) == ("already_committed", published)
    downstream = catalog.load_table(config.identifier(TABLE))
    assert len(downstream.snapshots()) == snapshots
    assert activity(spark, config) == activity_from_scratch(spark, config)
