"""The expire_snapshots DAG end to end through dag.test() on the events table with a real history:
one-minute ingest batches from the ingest job's functions, then hundreds of tiny batches."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta

import pytest

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.dag_runs import load_dag, run_dag_test
from lakeops.inflight import inflight
from lakeops.spark.job import RESULT_PREFIX
from tests.dags.history import ingest_minutes, tiny_batches

pytestmark = [pytest.mark.airflow, pytest.mark.spark]

START = datetime(2026, 11, 19, 0, 0, tzinfo=UTC)
INGESTED_MINUTES = 3
TINY_BATCHES = 240
RETAIN_LAST = 20


def test_expire_dag_on_a_table_with_hundreds_of_snapshots(airflow_db, spark, capfd):
    config = load_config()
    ingest_took = ingest_minutes(spark, config, START, INGESTED_MINUTES)
    tiny_took = tiny_batches(spark, config, START + timedelta(minutes=INGESTED_MINUTES), TINY_BATCHES)
    table = load_catalog(config.catalog).load_table(config.identifier("events"))
    snapshots = sorted(table.snapshots(), key=lambda s: s.timestamp_ms)
    assert len(snapshots) >= INGESTED_MINUTES + TINY_BATCHES
    current = table.current_snapshot().snapshot_id
    rows_before = sorted(r[0] for r in spark.sql(f"SELECT event_id FROM {config.qualified('events')}").collect())
    compacting_from = snapshots[10].snapshot_id  # an old snapshot a running compaction started from

    dag = load_dag("expire_snapshots")
    older_than = datetime.now(UTC).replace(microsecond=0)
    capfd.readouterr()
    began = time.perf_counter()
    with inflight(table.location(), "compaction", "dag-test", compacting_from):
        run = run_dag_test(dag, older_than + timedelta(days=1),
                           {"tables": ["events"], "older_than": older_than.isoformat(), "retain_last": RETAIN_LAST})
    dag_took = time.perf_counter() - began
    assert str(run.state) == "success"

    table = load_catalog(config.catalog).load_table(config.identifier("events"))
    left = {s.snapshot_id for s in table.snapshots()}
    assert table.current_snapshot().snapshot_id == current and compacting_from in left
    assert {s.snapshot_id for s in snapshots[-RETAIN_LAST:]} <= left and len(left) == RETAIN_LAST + 1
    spark.sql(f"REFRESH TABLE {config.qualified('events')}")
    assert sorted(r[0] for r in spark.sql(f"SELECT event_id FROM {config.qualified('events')}").collect()) == rows_before

    output = capfd.readouterr().out
    # the task log holds the job's LAKEOPS_RESULT line: JSON up to the log record's trailing [logger] tag
    results = [json.JSONDecoder().raw_decode(line.split(RESULT_PREFIX, 1)[1])[0]
               for line in output.splitlines() if RESULT_PREFIX in line]
    assert results, "the expire job printed no LAKEOPS_RESULT line"
    figures = {k: v for k, v in results[-1].items() if k not in ("expire_ids", "refs_kept", "kept_by_guards")}
    print(f"\nhistory: {INGESTED_MINUTES} ingest batches in {ingest_took:.1f} s, {TINY_BATCHES} tiny batches in "
          f"{tiny_took:.1f} s; {len(snapshots)} snapshots; DAG run {dag_took:.1f} s\nLAKEOPS_RESULT figures: {figures}")
    assert results[-1]["snapshots_expired"] == len(snapshots) - len(left)
    assert results[-1]["kept_by_guards"] == [{"snapshot_id": compacting_from, "reason": "in-flight compaction run dag-test"}]
    assert results[-1]["files_removed"] == results[-1]["predicted_files"] > 0 and results[-1]["bytes_removed"] > 0
