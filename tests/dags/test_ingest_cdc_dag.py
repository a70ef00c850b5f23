"""The CDC tables' ingest DAGs end to end through dag.test(): one DAG per table (ingest.<namespace>.<table>),
whose spark-submit of spark_jobs/ingest_cdc.py merges the interval's changes; the tables then hold the
generator's final state."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.dag_runs import load_dag, run_dag_test
from lakeops.generator import generate_cdc

pytestmark = [pytest.mark.airflow, pytest.mark.spark]

ARRIVAL = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
TICK = datetime(2026, 11, 21, 12, 5, tzinfo=UTC)
KEYS = {"users": "user_id", "orders": "order_id"}


def test_cdc_dag_merges_both_tables_once(airflow_db):
    config = load_config()
    stats = generate_cdc(config.landing_root, ARRIVAL, 5, 60, seed=17, delete_fraction=0.15)

    catalog = load_catalog(config.catalog)
    for table, key in KEYS.items():
        run = run_dag_test(load_dag(f"ingest.lakeops.{table}"), TICK)
        assert str(run.state) == "success"
        assert run.data_interval_start == ARRIVAL and run.data_interval_end == TICK
        loaded = catalog.load_table(config.identifier(table))
        keys = loaded.scan(selected_fields=(key,)).to_arrow().column(key).to_pylist()  # pyiceberg applies the position deletes
        assert sorted(keys) == sorted(stats.live[table])
        summary = loaded.current_snapshot().summary
        assert summary["lakeops.batch-id"] == f"lakeops.{table}@20261121T120000Z-20261121T120500Z"
        assert summary["wap.id"] == summary["lakeops.batch-id"]  # staged, then published by fast-forward
