"""How long one health-sensor poke takes on a table with many files (metadata only).

Builds an `orders` table of N small Parquet files (default 10,000) with pyarrow and registers
them with pyiceberg's add_files in commits of 100 files (so N/100 manifests and snapshots) over
ten day partitions, then times, side by side in one run: computing the health figures, one full
poke (config load, catalog load, figures, history insert, threshold check), and pyiceberg's own
scan planning of the same table for scale, each cold (lakeops' manifest cache emptied first, as in
a new process); then the figures and a poke again in the same process after one more commit of
100 files (what a deferrable sensor's trigger or a poke-mode sensor pays: only the new manifest is
read), and the memory the cache holds (tracemalloc). Medians of several runs.

    make bench-health_poke            # 10,000 files
    python -m benchmarks.health_poke --files 2000 --runs 3
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
import tracemalloc
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from benchmarks.results import markdown_table, results_path

SCHEMA = pa.schema([
    pa.field("order_id", pa.int64(), nullable=False), pa.field("user_id", pa.int64(), nullable=False),
    pa.field("status", pa.string()), pa.field("amount", pa.decimal128(12, 2)), pa.field("currency", pa.string()),
    pa.field("created_at", pa.timestamp("us")), pa.field("updated_at", pa.timestamp("us")),
])
DAY0 = datetime(2026, 11, 1)


def build_table(config, files: int, per_commit: int = 100, first_file: int = 0) -> None:
    """Register `files` new files (numbered from `first_file`), creating the table when it is the first batch."""
    from pyiceberg.transforms import DayTransform

    from lakeops.catalog import load_catalog

    catalog = load_catalog(config.catalog)
    if first_file:
        table = catalog.load_table(config.identifier("orders"))
    else:
        catalog.create_namespace_if_not_exists(config.catalog.namespace)
        table = catalog.create_table(config.identifier("orders"), SCHEMA)
        with table.update_spec() as spec:
            spec.add_field("created_at", DayTransform(), "created_at_day")
    data_dir = Path(config.catalog.data_dir) / "staged"
    started = time.perf_counter()
    for first in range(first_file, first_file + files, per_commit):
        paths = []
        for i in range(first, min(first + per_commit, first_file + files)):
            day = DAY0 + timedelta(days=i % 10)
            rows = pa.table({
                "order_id": pa.array(range(i * 10, i * 10 + 10), pa.int64()), "user_id": pa.array([i] * 10, pa.int64()),
                "status": ["created"] * 10, "amount": pa.array([Decimal("9.99")] * 10, pa.decimal128(12, 2)),
                "currency": ["USD"] * 10, "created_at": pa.array([day] * 10, pa.timestamp("us")),
                "updated_at": pa.array([day] * 10, pa.timestamp("us")),
            }, schema=SCHEMA)
            path = data_dir / f"created_at_day={day:%Y-%m-%d}" / f"f{i:06d}.parquet"
            path.parent.mkdir(parents=True, exist_ok=True)
            pq.write_table(rows, path)
            paths.append(f"file://{path}")  # as_uri() would percent-encode "=", which pyiceberg does not decode
        table.add_files(paths, check_duplicate_files=False)  # fresh paths; the check would rescan every file each commit
        if (first // per_commit) % 20 == 0:
            print(f"  {first - first_file + len(paths):,} of {files:,} files registered ({time.perf_counter() - started:.0f} s)",
                  flush=True)


def timed(fn, runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times), min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    from lakeops.catalog import load_catalog
    from lakeops.config import load_config
    from lakeops.health.check import run_check
    from lakeops.health.compute import compute_health
    from lakeops.health.manifests import MANIFESTS

    work = Path(tempfile.mkdtemp(prefix="lakeops-bench-poke-"))
    try:
        config_path = work / "lakeops.yaml"
        config_path.write_text(yaml.safe_dump({
            "catalog": {"name": "bench", "namespace": "lakeops", "data_dir": str(work / "data")},
            "tables": {"orders": {"schema": "orders", "partition_by": ["day(created_at)"]}},
        }))
        config = load_config(config_path)
        print(f"building a table of {args.files:,} files ...", flush=True)
        build_table(config, args.files)
        table = load_catalog(config.catalog).load_table(config.identifier("orders"))
        health = compute_health(table)
        assert health.data_files == args.files, health.data_files

        def cold(fn):
            def run():
                MANIFESTS.clear()
                fn()
            return run

        figures = timed(cold(lambda: compute_health(table)), args.runs)
        poke = timed(cold(lambda: run_check("orders", "small_files", config_path=str(config_path))), args.runs)
        plan = timed(lambda: sum(1 for _ in table.scan().plan_files()), args.runs)
        MANIFESTS.clear()
        tracemalloc.start()
        compute_health(table)
        cache_mb = tracemalloc.get_traced_memory()[0] / 2**20
        tracemalloc.stop()
        cached_files = MANIFESTS.files
        build_table(config, 100, first_file=args.files)  # one more commit: one new manifest
        table = load_catalog(config.catalog).load_table(config.identifier("orders"))
        warm_figures = timed(lambda: compute_health(table), args.runs)
        warm_poke = timed(lambda: run_check("orders", "small_files", config_path=str(config_path)), args.runs)
        rows = [
            ["health figures (compute_health, table loaded), cold", f"{figures[0]:.2f}", f"{figures[1]:.2f}"],
            ["one sensor poke (config, catalog, figures, history insert, check), cold", f"{poke[0]:.2f}", f"{poke[1]:.2f}"],
            ["for scale: pyiceberg scan planning of the same table", f"{plan[0]:.2f}", f"{plan[1]:.2f}"],
            ["health figures after one more commit, manifests cached", f"{warm_figures[0]:.2f}", f"{warm_figures[1]:.2f}"],
            ["one sensor poke after one more commit, manifests cached", f"{warm_poke[0]:.2f}", f"{warm_poke[1]:.2f}"],
        ]
        table_md = markdown_table(["what", "median s", "min s"], rows)
        header = (f"Table of {health.data_files:,} data files in {len(health.partitions)} partitions, "
                  f"{health.manifests} manifests, {health.snapshots} snapshots; {args.runs} runs each. The manifest "
                  f"cache held {cached_files:,} live files in {cache_mb:.1f} MB "
                  f"({cache_mb * 2**20 / max(cached_files, 1) / 1024:.2f} KB a file).\n\n")
        text = header + table_md + "\n"
        print(text)
        results_path("health_poke", ".md").write_text(text)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
