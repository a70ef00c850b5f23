"""How long one health check takes on a table of many files, from metadata only
(`python -m benchmarks health_checks [--quick]`).

Builds an `orders` table of N small Parquet files with pyarrow and registers them with pyiceberg's
add_files in commits of 100 files (so N/100 manifests and snapshots) over ten day partitions, then
times, side by side in one run: computing the health figures, one full sensor poke (config load,
catalog load, figures, history insert, threshold check), and pyiceberg's own scan planning of the
same table for scale, each cold (lakeops' manifest cache emptied first, as in a new process); then
the figures and a poke again in the same process after one more commit of 100 files (what a
deferrable sensor's trigger or a poke-mode sensor pays: only the new manifest is read), and the
memory the cache holds (tracemalloc). Medians of several runs.

Results: benchmarks/results/health_checks.md (.json beside it) and the plot health_checks.png.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from benchmarks.common import PROJECT_ROOT, demo_table, markdown_table, output_name, pyplot, save_figure, write_results

NAME = "health_checks"
SCHEMA = pa.schema([
    pa.field("order_id", pa.int64(), nullable=False), pa.field("user_id", pa.int64(), nullable=False),
    pa.field("status", pa.string()), pa.field("amount", pa.decimal128(12, 2)), pa.field("currency", pa.string()),
    pa.field("created_at", pa.timestamp("us")), pa.field("updated_at", pa.timestamp("us")),
])
DAY0 = datetime(2026, 11, 1)
PER_COMMIT = 100


@dataclass(frozen=True)
class Sizes:
    files: int = 10_000
    runs: int = 5


FULL = Sizes()
QUICK = Sizes(files=1_000, runs=3)


def build_table(config, files: int, first_file: int = 0) -> None:
    """Register `files` new files (numbered from `first_file`) in commits of PER_COMMIT, creating
    the table when it is the first batch."""
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
    for first in range(first_file, first_file + files, PER_COMMIT):
        paths = []
        for i in range(first, min(first + PER_COMMIT, first_file + files)):
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
        if (first // PER_COMMIT) % 20 == 0:
            print(f"  {first - first_file + len(paths):,} of {files:,} files registered ({time.perf_counter() - started:.0f} s)",
                  flush=True)


def timed(fn: Callable[[], Any], runs: int) -> dict[str, float]:
    """Median and best seconds of `runs` calls."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return {"median_s": statistics.median(times), "min_s": min(times)}


def run(work: Path, sizes: Sizes) -> dict[str, Any]:
    from lakeops.catalog import load_catalog
    from lakeops.config import load_config
    from lakeops.health.check import run_check
    from lakeops.health.compute import compute_health
    from lakeops.health.manifests import MANIFESTS

    config_path = work / "lakeops.yaml"
    config_path.write_text(yaml.safe_dump({
        "catalog": {"name": "bench", "namespace": "lakeops", "data_dir": str(work / "data")},
        "tables": {"orders": demo_table("orders")},
    }))
    config = load_config(config_path)
    print(f"building a table of {sizes.files:,} files ...", flush=True)
    build_table(config, sizes.files)
    table = load_catalog(config.catalog).load_table(config.identifier("orders"))
    health = compute_health(table)
    if health.data_files != sizes.files:
        raise RuntimeError(f"the health figures count {health.data_files} data files; {sizes.files} were registered")

    def cold(fn: Callable[[], Any]) -> Callable[[], None]:
        def again() -> None:
            MANIFESTS.clear()
            fn()
        return again

    timings = {
        "figures_cold": timed(cold(lambda: compute_health(table)), sizes.runs),
        "poke_cold": timed(cold(lambda: run_check("orders", "small_files", config_path=str(config_path))), sizes.runs),
        "scan_planning": timed(lambda: sum(1 for _ in table.scan().plan_files()), sizes.runs),
    }
    MANIFESTS.clear()
    tracemalloc.start()
    compute_health(table)
    cache_mb = tracemalloc.get_traced_memory()[0] / 2**20
    tracemalloc.stop()
    cached_files = MANIFESTS.files
    build_table(config, PER_COMMIT, first_file=sizes.files)  # one more commit: one new manifest
    table = load_catalog(config.catalog).load_table(config.identifier("orders"))
    timings["figures_cached"] = timed(lambda: compute_health(table), sizes.runs)
    timings["poke_cached"] = timed(lambda: run_check("orders", "small_files", config_path=str(config_path)), sizes.runs)
    return {"sizes": asdict(sizes), "data_files": health.data_files, "partitions": len(health.partitions),
            "manifests": health.manifests, "snapshots": health.snapshots, "cache_mb": cache_mb,
            "cached_files": cached_files, "timings": timings}


LABELS = {
    "figures_cold": "health figures (compute_health, table loaded), cold",
    "poke_cold": "one sensor poke (config, catalog, figures, history insert, check), cold",
    "scan_planning": "for scale: pyiceberg scan planning of the same table",
    "figures_cached": "health figures after one more commit, manifests cached",
    "poke_cached": "one sensor poke after one more commit, manifests cached",
}
SHORT = {"figures_cold": "health figures, cold", "poke_cold": "sensor poke, cold", "scan_planning": "pyiceberg scan planning",
         "figures_cached": "health figures, cached", "poke_cached": "sensor poke, cached"}


def report(result: dict[str, Any]) -> str:
    rows = [[label, f"{result['timings'][key]['median_s']:.2f}", f"{result['timings'][key]['min_s']:.2f}"]
            for key, label in LABELS.items()]
    kb_a_file = result["cache_mb"] * 2**20 / max(result["cached_files"], 1) / 1024
    return (f"Table of {result['data_files']:,} data files in {result['partitions']} partitions, "
            f"{result['manifests']} manifests, {result['snapshots']} snapshots; {result['sizes']['runs']} runs each. The "
            f"manifest cache held {result['cached_files']:,} live files in {result['cache_mb']:.1f} MB "
            f"({kb_a_file:.2f} KB a file).\n\n" + markdown_table(["what", "median s", "min s"], rows) + "\n")


def plot(result: dict[str, Any], name: str) -> Path:
    fig, ax = pyplot().subplots(figsize=(9, 3.6))
    keys = list(LABELS)
    medians = [result["timings"][k]["median_s"] for k in keys]
    bars = ax.barh([SHORT[k] for k in keys], medians, color=["tab:blue", "tab:blue", "tab:grey", "tab:green", "tab:green"])
    ax.bar_label(bars, labels=[f" {m:.2f} s" for m in medians])
    ax.set_xlim(0, max(medians) * 1.2)
    ax.invert_yaxis()
    ax.set_xlabel("seconds, median")
    ax.set_title(f"Health check on {result['data_files']:,} files, {result['manifests']} manifests: cold and with "
                 "the manifest cache", fontsize=10)
    return save_figure(fig, name)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m benchmarks {NAME}", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a table of 1,000 files: checks that it runs, in a minute")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="lakeops-bench-health-"))
    try:
        result = run(work, QUICK if args.quick else FULL)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    name = output_name(NAME, args.quick)
    paths = write_results(name, report(result), result)
    paths.append(plot(result, name))
    print("written: " + ", ".join(str(p.relative_to(PROJECT_ROOT)) for p in paths))
    return 0
