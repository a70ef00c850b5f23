"""The compact_on_health DAG end to end through dag.test() on a table with real position delete
files (merged by the CDC ingest job): plan → one mapped spark-submit of spark_jobs/compact_table.py
per table with actions, and nothing mapped on a table that needs nothing. The watcher's own path
(asset events from the triggerer) runs in tests/e2e/test_compact_on_health.py."""

from __future__ import annotations

import pytest

from lakeops.config import load_config
from lakeops.dag_runs import load_dag, run_dag_test
from lakeops.health.compute import table_health
from tests.integration.compaction.conftest import START, keys, land_and_merge

pytestmark = [pytest.mark.airflow, pytest.mark.spark]


def _states(run) -> dict[str, list[str]]:
    states: dict[str, list[str]] = {}
    for ti in run.get_task_instances():
        states.setdefault(ti.task_id, []).append(str(ti.state))
    return states


def test_a_manual_run_compacts_the_table_that_needs_it_and_then_maps_nothing(airflow_db, orders_session):
    config, session = load_config(), orders_session
    land_and_merge(session, config, "orders", 5, per_minute=40, seed=43)
    rows_before = keys(session, config, "orders")
    before = table_health(config, "orders")
    assert before.delete_files > 0

    run = run_dag_test(load_dag("compact_on_health"), START.replace(hour=13), run_conf={"tables": ["orders"]})

    assert str(run.state) == "success"
    assert _states(run) == {"plan": ["success"], "compact": ["success"], "report": ["success"]}
    assert [ti.rendered_map_index for ti in run.get_task_instances() if ti.task_id == "compact"] == ["lakeops.orders"]
    after = table_health(config, "orders")
    print(f"compact_on_health on orders: data files {before.data_files} -> {after.data_files}, read amplification "
          f"{before.read_amp_files:.2f} -> {after.read_amp_files:.2f}")
    assert after.applied_delete_files < before.applied_delete_files and after.read_amp_files < before.read_amp_files
    session.catalog.refreshTable(config.qualified("orders"))
    assert keys(session, config, "orders") == rows_before

    again = run_dag_test(load_dag("compact_on_health"), START.replace(hour=14), run_conf={"tables": ["orders"]})
    assert str(again.state) == "success"
    assert _states(again)["plan"] == ["success"] and _states(again).get("compact", ["skipped"]) == ["skipped"]
    assert table_health(config, "orders").snapshot_id == after.snapshot_id  # nothing committed
