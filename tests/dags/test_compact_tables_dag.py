"""The compact_tables DAG end to end through dag.test() on a table with real position delete files
(merged by the CDC ingest job): metrics -> plan -> spark-submit of spark_jobs/compact_table.py."""

from __future__ import annotations

import pytest

from lakeops.config import load_config
from lakeops.dag_runs import load_dag, run_dag_test
from lakeops.health.compute import table_health
from tests.integration.compaction.conftest import START, keys, land_and_merge

pytestmark = [pytest.mark.airflow, pytest.mark.spark]


def test_compaction_dag_folds_the_delete_files_of_a_cdc_table(airflow_db, orders_session):
    config, session = load_config(), orders_session
    land_and_merge(session, config, "orders", 5, per_minute=40, seed=41)
    rows_before = keys(session, config, "orders")
    before = table_health(config, "orders")
    assert before.delete_files > 0

    run = run_dag_test(load_dag("compact_tables"), START.replace(hour=13), run_conf={"tables": ["orders"], "dry_run": False})

    assert str(run.state) == "success"
    states = {(ti.task_id, ti.rendered_map_index): str(ti.state) for ti in run.get_task_instances()}
    # each per-table task shows under the table's name; 1.8 files per data file is over the shipped limit
    assert states[("read_amplification", "lakeops.orders")] == "success", states
    assert states[("plan", None)] == "success" and states[("compact", "lakeops.orders")] == "success", states
    assert states[("report", None)] == "success", states
    after = table_health(config, "orders")
    print(f"compact_tables DAG on orders: data files {before.data_files} -> {after.data_files}, "
          f"applied delete files {before.applied_delete_files} -> {after.applied_delete_files} "
          f"({after.dangling_delete_files} dangling), "
          f"read amplification {before.read_amp_files:.2f} -> {after.read_amp_files:.2f}")
    assert after.applied_delete_files < before.applied_delete_files and after.read_amp_files < before.read_amp_files
    session.catalog.refreshTable(config.qualified("orders"))
    assert keys(session, config, "orders") == rows_before
