"""Snapshot expiry on tables with real history (`python -m benchmarks expiry [--quick]`; Airflow's
metadata database must be migrated: `make bench-expiry` does it).

Builds history with the ingest and CDC jobs' own library functions (one commit per one-minute
interval: `events` appends, `users`/`orders` merge-on-read MERGEs), then runs the
`expire_snapshots` DAG through Airflow's dag.test() on each table and reports what went: snapshots,
files and bytes under the table, and whether the current snapshot still reads every row.

Results: benchmarks/results/expiry.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.common import markdown_table, output_name, with_catalog, write_results

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

NAME = "expiry"
START = datetime(2026, 11, 20, 0, 0, tzinfo=UTC)
TABLES = ("events", "orders", "users")


@dataclass(frozen=True)
class Sizes:
    minutes: int = 150
    """One-minute intervals of history per table: one commit each."""
    retain_last: int = 5


FULL = Sizes()
QUICK = Sizes(minutes=10)


def files_on_disk(table) -> tuple[int, int]:
    """(files, bytes) under the table's location on local disk."""
    root = Path(table.location().removeprefix("file://").removeprefix("file:"))
    files = [p for p in root.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def row_fingerprint(table) -> list[str]:
    return sorted(repr(sorted(r.items())) for r in table.scan().to_arrow().to_pylist())


def run(sizes: Sizes, spark: SparkSession | None = None,
        tables: tuple[str, ...] = TABLES) -> tuple[list[list[str]], float]:
    """The history of `tables`, then one expiry DAG run per table: a row of figures per table, and the seconds
    from the history's start to the last expiry run's end. The history is written on a session of
    its own, stopped before the DAG runs, unless given one."""
    from lakeops.catalog import load_catalog
    from lakeops.config import load_config
    from lakeops.dag_runs import load_dag, run_dag_test
    from lakeops.generator import generate_cdc, generate_events
    from lakeops.ingest.plan import plan_ingest
    from lakeops.spark.ingest_cdc import run_cdc_ingest
    from lakeops.spark.ingest_events import run_ingest
    from lakeops.spark.session import build_session

    config = load_config()
    generate_events(config.landing_root, START, sizes.minutes, 20, seed=3)
    generate_cdc(config.landing_root, START, sizes.minutes, 30, seed=4)
    own_session = spark is None
    if own_session:
        spark = build_session(config, "lakeops expiry history", master="local[2]")
    else:
        spark = with_catalog(spark, config)
    spark.sparkContext.setLogLevel("ERROR")
    began = time.perf_counter()
    for i in range(sizes.minutes):
        moment = START + timedelta(minutes=i)
        if "events" in tables:
            run_ingest(spark, config, "events", plan_ingest(config, "events", moment, moment + timedelta(minutes=1)))
        for table in [t for t in ("users", "orders") if t in tables]:
            run_cdc_ingest(spark, config, table, plan_ingest(config, table, moment, moment + timedelta(minutes=1)))
        if (i + 1) % 25 == 0:
            print(f"  history: {i + 1}/{sizes.minutes} intervals ingested ({time.perf_counter() - began:.0f} s)", flush=True)
    if own_session:
        spark.stop()

    catalog = load_catalog(config.catalog)
    dag = load_dag("expire_snapshots")
    rows = []
    for name in tables:
        table = catalog.load_table(config.identifier(name))
        before_snapshots, (before_files, before_bytes) = len(table.snapshots()), files_on_disk(table)
        before_rows = row_fingerprint(table)
        older_than = datetime.now(UTC).replace(microsecond=0)
        run_began = time.perf_counter()
        run = run_dag_test(dag, older_than + timedelta(days=1),
                           {"tables": [name], "older_than": older_than.isoformat(), "retain_last": sizes.retain_last})
        took = time.perf_counter() - run_began
        table = catalog.load_table(config.identifier(name))
        after_files, after_bytes = files_on_disk(table)
        same = row_fingerprint(table) == before_rows
        rows.append([name, str(run.state), f"{before_snapshots:,}", f"{len(table.snapshots()):,}", f"{before_files:,}",
                     f"{after_files:,}", f"{(before_bytes - after_bytes) / 1e6:.2f}", "yes" if same else "NO", f"{took:.0f}"])
        print(f"  expire {name}: {run.state} in {took:.0f} s", flush=True)
    return rows, time.perf_counter() - began


def report(rows: list[list[str]], sizes: Sizes, seconds: float) -> str:
    table_md = markdown_table(["table", "DAG run", "snapshots before", "after", "files under table before", "after",
                               "MB removed", "current rows identical", "DAG run s"], rows)
    return (f"History: {sizes.minutes} one-minute intervals per table through the ingest and CDC jobs "
            f"({seconds:.0f} s in all); expiry with older_than = now, retain_last = {sizes.retain_last}.\n\n"
            + table_md + "\n")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m benchmarks {NAME}", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10 minutes of history: checks that it runs, in a few minutes")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    data_dir = Path(os.environ.get("LAKEOPS_DATA_DIR", ".lakeops")).resolve() / f"bench-{output_name(NAME, args.quick)}"
    shutil.rmtree(data_dir, ignore_errors=True)
    os.environ["LAKEOPS_DATA_DIR"] = str(data_dir)  # the spark-submit of the DAG run inherits it
    os.environ.setdefault("AIRFLOW__LOGGING__LOGGING_LEVEL", "WARNING")
    rows, seconds = run(sizes)
    write_results(output_name(NAME, args.quick), report(rows, sizes, seconds))
    return 0 if all(r[1] == "success" and r[7] == "yes" for r in rows) else 1
