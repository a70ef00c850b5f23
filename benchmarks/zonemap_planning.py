"""Zonemap planning at scale (`python -m benchmarks zonemap_planning [--quick]`): metadata-only tables of
10,000 to 1,000,000 files (benchmarks/zonemaps/generate.py: manifests and a consolidated index, no
data), planned three ways for the same predicates, cold and warm:

* zonemap: lakeops.zonemap.candidates.candidate_files (the master plus the snapshots since, pruned
  over Arrow columns);
* Iceberg (Spark's planning): Iceberg's Java planner as Spark calls it, `newScan().filter(..).planFiles()`
  on the table Spark loads, with the pushed-down filter (partitions, manifest and file metrics);
* pyiceberg: `scan(row_filter).plan_files()`, what the previous candidate_files listed first (up to
  100,000 files: it takes minutes beyond).

Also: the index's memory (bytes per indexed file, the held part against zonemap.hot_memory_mb) and how
planning grows with the snapshots committed since the last consolidation. Results:
benchmarks/results/zonemap_planning.md (.json beside it) and zonemap_planning.png.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import resource
import shutil
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.common import (
    PROJECT_ROOT,
    bench_config,
    configure_logging,
    local_spark,
    markdown_table,
    output_name,
    pyplot,
    save_figure,
    write_results,
)

log = logging.getLogger("benchmarks.zonemap_planning")

NAME = "zonemap_planning"
NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
HOT_MEMORY_MB = 64
REPETITIONS = 3
# Scenarios as data: table sizes (files) and the predicates planned on each.
SIZES = (10_000, 100_000, 1_000_000)
QUICK_SIZES = (2_000, 5_000)
USER = 4242
QUERIES = {
    "one user_id, 2 h (hot)": ("user_id", (USER,), NOW - timedelta(hours=2), NOW),
    "one user_id, 2 h (cold)": ("user_id", (USER,), NOW - timedelta(days=10), NOW - timedelta(days=10) + timedelta(hours=2)),
    "one country, 1 day (cold)": ("country", ("DE",), NOW - timedelta(days=11), NOW - timedelta(days=10)),
}
PYICEBERG_MAX_FILES = 100_000


@dataclass(frozen=True)
class Plan:
    files: int
    query: str
    method: str
    cold_s: float
    warm_s: float
    planned: int
    """Files the method keeps (zonemap: candidates; Iceberg: tasks)."""


@dataclass(frozen=True)
class Memory:
    files: int
    master_disk_bytes: int
    columns_bytes: int
    """The master's statistics as held columns (lakeops.zonemap.columns), whole."""
    held_bytes: int
    max_bytes: int
    rss_mb: float


@dataclass(frozen=True)
class Growth:
    files: int
    replayed: int
    cold_s: float
    warm_s: float


def _predicate(spec: tuple[str, tuple[Any, ...], datetime, datetime]) -> Any:
    from pyiceberg import expressions as E

    column, values, start, end = spec
    match = E.EqualTo(column, values[0]) if len(values) == 1 else E.In(column, values)
    return E.And(match, E.And(E.GreaterThanOrEqual("event_time", start.isoformat()), E.LessThan("event_time", end.isoformat())))


def _java_filter(gateway: Any, spec: tuple[str, tuple[Any, ...], datetime, datetime]) -> Any:
    x = gateway.org.apache.iceberg.expressions.Expressions
    both = getattr(x, "and")  # a Python keyword: py4j's attribute by name
    column, values, start, end = spec
    return both(x.equal(column, values[0]), both(x.greaterThanOrEqual("event_time", int(start.timestamp() * 1e6)),
                                                 x.lessThan("event_time", int(end.timestamp() * 1e6))))


def _cold_warm(cold: Callable[[], Any], warm: Callable[[], Any]) -> tuple[float, float, Any]:
    began = time.perf_counter()
    result = cold()
    cold_s = time.perf_counter() - began
    times = []
    for _ in range(REPETITIONS):
        began = time.perf_counter()
        warm()
        times.append(time.perf_counter() - began)
    return cold_s, statistics.median(times), result


def _reset() -> None:
    """Drop this process's index caches (held files, prepared snapshots, snapshot deltas)."""
    from lakeops.zonemap.history import DELTAS
    from lakeops.zonemap.hot import HOT

    HOT.clear()
    DELTAS.clear()


def measure(spark: Any, catalog: Any, qualified: str, identifier: str, files: int) -> tuple[list[Plan], Memory, list[Growth]]:
    from lakeops.spark.session import jvm
    from lakeops.zonemap.candidates import candidate_files
    from lakeops.zonemap.hot import HOT, set_hot_memory
    from lakeops.zonemap.index import index_files, load_columns
    from lakeops.zonemap.store import types_for

    set_hot_memory(HOT_MEMORY_MB)
    plans = []
    gateway = jvm(spark)
    iterables = gateway.org.apache.iceberg.relocated.com.google.common.collect.Iterables
    for query, spec in QUERIES.items():
        predicate = _predicate(spec)

        def ours_cold(p: Any = predicate) -> Any:
            _reset()
            return candidate_files(catalog.load_table(identifier), p)

        table = catalog.load_table(identifier)
        cold, warm, found = _cold_warm(ours_cold, lambda p=predicate, t=table: candidate_files(t, p))
        plans.append(Plan(files, query, "zonemap", cold, warm, len(found.files)))

        def iceberg(s: Any = spec) -> int:
            jtable = gateway.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, qualified)
            planned = jtable.newScan().filter(_java_filter(gateway, s)).planFiles()
            try:
                return int(iterables.size(planned))
            finally:
                planned.close()

        spark.sql(f"REFRESH TABLE {qualified}")
        cold, warm, count = _cold_warm(iceberg, iceberg)
        plans.append(Plan(files, query, "Iceberg (Spark's planning)", cold, warm, count))
        if files <= PYICEBERG_MAX_FILES:
            def listing(p: Any = predicate) -> int:
                return sum(1 for _ in catalog.load_table(identifier).scan(row_filter=p).plan_files())

            cold, warm, count = _cold_warm(listing, listing)
            plans.append(Plan(files, query, "pyiceberg", cold, warm, count))
        log.info("%d files, %s: %s", files, query, ", ".join(f"{p.method} {p.cold_s:.2f}/{p.warm_s:.3f} s"
                                                            for p in plans if p.query == query and p.files == files))
    table = catalog.load_table(identifier)
    located = index_files(table.location())
    assert located.master is not None
    from lakeops.zonemap.store import _filesystem

    fs, path = _filesystem(located.master)
    held, peak = HOT.stats(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before the whole master is decoded
    columns = load_columns(located.master, types_for(table.schema()), blooms=False)
    memory = Memory(files, fs.get_file_info(path).size or 0, columns.nbytes if columns else 0, held.bytes, held.max_bytes,
                    peak)
    growth = []
    master_snapshot = located.master_version.snapshot_id if located.master_version else None
    predicate = _predicate(QUERIES["one user_id, 2 h (cold)"])
    for snapshot in (master_snapshot, None):
        def cold_plan(s: int | None = snapshot) -> Any:
            _reset()
            return candidate_files(catalog.load_table(identifier), predicate, s)

        cold, warm, found = _cold_warm(cold_plan, lambda s=snapshot, t=table: candidate_files(t, predicate, s))
        growth.append(Growth(files, found.replayed_snapshots, cold, warm))
    return plans, memory, growth


def _generated(catalog: Any, work: Path, identifier: str, files: int) -> tuple[Any, bool]:
    """The table generated by an earlier run in work (its master written again by the current writer),
    or a new one; generation records its timings in work so a reused table reports them."""
    import json

    from benchmarks.zonemaps.generate import GeneratedTable, generate, rewrite_master

    record = work / f"generated_{files}.json"
    if record.exists() and catalog.table_exists(identifier):
        kept = GeneratedTable(**json.loads(record.read_text()))
        log.info("reusing %s generated earlier", identifier)
        return dataclasses.replace(kept, master_bytes=rewrite_master(catalog.load_table(identifier))), True
    table = generate(catalog, identifier, files, NOW)
    record.write_text(json.dumps(dataclasses.asdict(table)))
    return table, False


def run(work: Path, sizes: tuple[int, ...], generate_only: bool = False) -> dict[str, Any]:
    from lakeops.catalog import load_catalog

    named = work / "catalog_name"
    config = bench_config(work, {}, named.read_text().strip() if named.exists() else None)
    named.write_text(config.catalog.name)
    spark = None if generate_only else local_spark(config, "lakeops benchmark zonemap_planning")
    catalog = load_catalog(config.catalog)
    catalog.create_namespace_if_not_exists("bench")
    plans, memories, growth, built, reused = [], [], [], [], []
    began = time.perf_counter()
    try:
        for files in sizes:
            identifier = f"bench.g{files}"
            table, again = _generated(catalog, work, identifier, files)
            built.append(table)
            if again:
                reused.append(files)
            log.info("generated %d files: %s", files, {k: round(v, 1) for k, v in table.seconds.items()})
            if spark is None:
                continue
            p, m, g = measure(spark, catalog, f"{config.catalog.name}.bench.g{files}", identifier, files)
            plans += p
            memories.append(m)
            growth += g
    finally:
        if spark is not None:
            spark.stop()
    return {"plans": plans, "memory": memories, "growth": growth, "built": built, "reused": reused,
            "seconds": time.perf_counter() - began}


def render(result: dict[str, Any], load: str) -> str:
    plans = [[f"{p.files:,}", p.query, p.method, f"{p.cold_s * 1000:,.0f} ms", f"{p.warm_s * 1000:,.1f} ms", f"{p.planned:,}"]
             for p in result["plans"]]
    memory = [[f"{m.files:,}", f"{m.master_disk_bytes / m.files:,.0f}", f"{m.columns_bytes / m.files:,.0f}",
               f"{m.held_bytes / 2**20:,.1f} of {m.max_bytes / 2**20:,.0f} MiB", f"{m.rss_mb:,.0f} MiB"]
              for m in result["memory"]]
    growth = [[f"{g.files:,}", f"{g.replayed}", f"{g.cold_s * 1000:,.0f} ms", f"{g.warm_s * 1000:,.1f} ms"]
              for g in result["growth"]]
    built = ", ".join(f"{b.files:,} files: manifests {b.seconds['manifests']:.0f} s, index {b.seconds['index']:.0f} s"
                      + (" by an earlier run, reused" if b.files in result.get("reused", []) else "") for b in result["built"])
    return "\n".join([
        "# Zonemap planning at scale (metadata-only tables)",
        "",
        f"One run, {result['seconds'] / 60:.1f} min, local Spark (`local[2]`), {load}. Generated ({built}): "
        "bulk commits consolidated into a daily master, then 24 commits of 10 files with micro zonemaps. "
        f"Cold: caches dropped and the table loaded again (zonemap), first planning after REFRESH TABLE (Iceberg); "
        f"warm: median of {REPETITIONS}.",
        "",
        markdown_table(["files", "query", "method", "cold", "warm", "files planned"], plans),
        "",
        "Index memory: bytes per indexed file on disk (the master Parquet, Bloom filters included) and as held "
        "statistics columns (decoded whole for this figure only, after the others); what the process holds under "
        "`hot_memory_mb` after planning; peak resident memory of the process through planning (generation included "
        "unless the table was reused).",
        "",
        markdown_table(["files", "disk B/file", "columns B/file", "held", "peak RSS"], memory),
        "",
        "Planning against snapshots since the last consolidation (one user_id, 2 h, cold range): at the master's "
        "snapshot and at the current one.",
        "",
        markdown_table(["files", "snapshots replayed", "cold", "warm"], growth),
        "",
    ])


def plot(result: dict[str, Any], name: str) -> Path:
    fig, axes = pyplot().subplots(1, 2, figsize=(13, 5))
    for ax, attr, title in ((axes[0], "warm_s", "warm"), (axes[1], "cold_s", "cold")):
        for method in dict.fromkeys(p.method for p in result["plans"]):
            points = [p for p in result["plans"] if p.method == method and p.query == "one user_id, 2 h (cold)"]
            ax.plot([p.files for p in points], [getattr(p, attr) for p in points], marker="o", label=method)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("live files")
        ax.set_ylabel("planning time (s)")
        ax.set_title(f"planning, {title} (one user_id, 2 h)")
        ax.grid(which="both", alpha=0.3)
    axes[0].legend()
    return save_figure(fig, name, dpi=110)


def main(argv: list[str]) -> int:
    import os

    parser = argparse.ArgumentParser(prog=f"python -m benchmarks {NAME}", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes: checks that it runs")
    parser.add_argument("--sizes", help="comma-separated table sizes instead of the scenarios' (e.g. 10000,100000)")
    parser.add_argument("--work-dir", default=None,
                        help="scratch folder (emptied first unless --reuse); default build/bench-zonemap-planning[-SIZES]")
    parser.add_argument("--reuse", action="store_true",
                        help="keep the work dir: tables generated there by an earlier run are measured again (their "
                             "master rewritten by the current writer unless it has its layout) instead of generated anew")
    parser.add_argument("--generate-only", action="store_true", help="generate the tables (kept for --reuse), measure nothing")
    args = parser.parse_args(argv)
    configure_logging(logging.INFO)
    for noisy in ("lakeops.zonemap", "lakeops.spark"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    work = Path(args.work_dir or PROJECT_ROOT / "build" / ("bench-zonemap-planning" + (f"-{args.sizes}" if args.sizes else "")))
    if not (args.reuse or args.generate_only):
        shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    sizes = tuple(int(s) for s in args.sizes.split(",")) if args.sizes else (QUICK_SIZES if args.quick else SIZES)
    load = "load average {:.1f} / {:.1f} / {:.1f} at the start".format(*os.getloadavg())
    result = run(work, sizes, args.generate_only)
    if args.generate_only:
        print(f"generated in {work}: " + ", ".join(f"{b.files:,} files" for b in result["built"]))
        return 0
    load += ", {:.1f} / {:.1f} / {:.1f} at the end".format(*os.getloadavg())
    name = output_name(NAME, args.quick) + (f"_{'_'.join(str(n) for n in sizes)}" if args.sizes else "")
    data = {k: [dataclasses.asdict(x) if dataclasses.is_dataclass(x) else x for x in v] if isinstance(v, list) else v
            for k, v in result.items()}
    paths = write_results(name, render(result, load), {**data, "load": load})
    paths.append(plot(result, name))
    print("written: " + ", ".join(str(p.relative_to(PROJECT_ROOT)) for p in paths))
    return 0
