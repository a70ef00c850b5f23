"""ingest.lakeops.events -> zonemap_hourly -> zonemap_daily end to end through Airflow's dag.test(): each run
spark-submits its job; the hourly and daily runs take their hour and day from their data interval."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pyiceberg import expressions as E

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.dag_runs import load_dag, run_dag_test
from lakeops.generator import generate_events
from lakeops.zonemap.candidates import candidate_files
from lakeops.zonemap.levels import DAILY, HOURLY
from lakeops.zonemap.snapmap import micro_files, read_map
from lakeops.zonemap.store import zonemap_root

pytestmark = [pytest.mark.airflow, pytest.mark.spark]

ARRIVAL = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def test_ingest_then_hourly_then_daily_consolidation(airflow_db):
    config = load_config()
    generate_events(config.landing_root, ARRIVAL, 5, 100, seed=33)
    assert str(run_dag_test(load_dag("ingest.lakeops.events"), ARRIVAL + timedelta(minutes=5)).state) == "success"
    table = load_catalog(config.catalog).load_table(config.identifier("events"))
    committed = datetime.fromtimestamp(table.current_snapshot().timestamp_ms / 1000, tz=UTC)
    hour = committed.replace(minute=0, second=0, microsecond=0)
    root = zonemap_root(table.location())
    assert any(m.snapshot_id == table.current_snapshot().snapshot_id for m in micro_files(table))

    # The hourly cron ticks at HH:05: the run whose interval [HH:05, HH+1:05) ends at the next tick consolidates hour HH.
    hourly = run_dag_test(load_dag("zonemap_hourly"), hour + timedelta(hours=1, minutes=5))
    assert str(hourly.state) == "success"
    assert [v.period for v in read_map(root, HOURLY)][-1] == hour.strftime("%Y-%m-%dT%H")

    daily = run_dag_test(load_dag("zonemap_daily"), hour.replace(hour=0, minute=30) + timedelta(days=1))
    assert str(daily.state) == "success"
    master = read_map(root, DAILY)[-1]
    assert master.period == hour.date().isoformat() and master.snapshot_id == table.current_snapshot().snapshot_id
    table = load_catalog(config.catalog).load_table(config.identifier("events"))
    assert micro_files(table) == [], "the master covers every micro zonemap: they were removed"
    found = candidate_files(table, E.EqualTo("user_id", -1))
    assert found.coverage == 1.0 and found.files == []
