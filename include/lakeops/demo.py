"""`make demo`: land an hour of events, ingest it through the demo table's ingest DAG (rendered from the
configuration), and print what the table holds, read back independently with pyiceberg and with Spark."""

from __future__ import annotations

import logging
import os
import time
from datetime import UTC, datetime, timedelta

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.dag_runs import load_dag, run_dag_test
from lakeops.generator import generate_events
from lakeops.summary import batch_commits, pyiceberg_summary, spark_summary

DEMO_START = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
DEMO_MINUTES = 60
EVENTS_PER_MINUTE = 500
TABLE = "lakeops.events"


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    # dag.test() streams every task log line to the console; keep the demo's own lines readable.
    # Warnings and errors (a failing task) still show. Set it to INFO to watch the Spark jobs.
    os.environ.setdefault("AIRFLOW__LOGGING__LOGGING_LEVEL", "WARNING")
    config = load_config()
    interval = timedelta(minutes=config.table(TABLE).ingest_interval_minutes)
    print(f"lakeops demo: data under {config.catalog.data_dir}")

    landed = generate_events(config.landing_root, DEMO_START, DEMO_MINUTES, EVENTS_PER_MINUTE)
    print(f"  landed   {landed.files} files, {landed.lines:,} lines: {landed.good:,} good events "
          f"({landed.late:,} late), {landed.bad_total} bad lines {landed.bad}")

    dag = load_dag(f"ingest.{TABLE}")
    ticks = [DEMO_START + interval * (i + 1) for i in range(DEMO_MINUTES // int(interval.total_seconds() // 60))]
    started = time.monotonic()
    failed = []
    for n, tick in enumerate(ticks, 1):
        run_started = time.monotonic()
        run = run_dag_test(dag, tick)
        print(f"  ingest   run {n:2}/{len(ticks)}  interval {tick - interval:%H:%M}-{tick:%H:%M}  "
              f"{run.state}  {time.monotonic() - run_started:5.1f}s", flush=True)
        if str(run.state) != "success":
            failed.append(tick)
    print(f"  ingest   {len(ticks)} runs of DAG {dag.dag_id} through dag.test() in {time.monotonic() - started:.0f}s, "
          f"{len(failed)} failed")

    catalog = load_catalog(config.catalog)
    commits = batch_commits(catalog, config, TABLE)
    print(f"  commits  {len(commits)} batches on the table; first: {commits[0]['lakeops.batch-id']} "
          f"rows={commits[0]['lakeops.rows']} quarantined={commits[0]['lakeops.quarantined']}" if commits else "  commits  none")

    from lakeops.spark.session import build_session

    by_iceberg = pyiceberg_summary(catalog, config, TABLE)
    spark = build_session(config, "lakeops demo summary", master="local[2]")
    spark.sparkContext.setLogLevel("ERROR")
    by_spark = spark_summary(spark, config, TABLE)
    spark.stop()
    print(f"\n  {'table ' + TABLE:<22}{'pyiceberg':>12}{'Spark':>12}")
    for field in ("rows", "files", "snapshots", "quarantined"):
        print(f"  {field:<22}{getattr(by_iceberg, field):>12,}{getattr(by_spark, field):>12,}")
    exact = by_iceberg.rows == by_spark.rows == landed.good and by_iceberg.quarantined == landed.bad_total
    print(f"\n  every landed line accounted for (rows == good events, quarantined == bad lines): {'yes' if exact else 'NO'}")
    if failed or not exact:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
