"""Zonemap-pruned reads (`python -m benchmarks zonemaps [--quick]`): selective reads on a table of
many small files (table.py), five ways (reads.py): Spark with Iceberg's pruning, Spark over a copy
with Iceberg's Parquet Bloom filters and a sort order, lakeops' zonemap-pruned Spark read
(lakeops.read), lakeops' zonemap-pruned read without Spark (lakeops query), and the
oracle (the files that truly hold a match), for recent (hot) and old (cold) ranges, cold and warm.
Planning at 100,000 and 1,000,000 files: the zonemap_planning benchmark. What zonemaps cost the writes is measured by the
ingest_and_commits benchmark.

Results: benchmarks/results/zonemaps.md (.json beside it) and the plot zonemaps.png (log scale).
Timings are medians; compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import shutil
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.common import (
    PROJECT_ROOT,
    bench_config,
    configure_logging,
    demo_table,
    local_spark,
    markdown_table,
    output_name,
    pyplot,
    save_figure,
    write_results,
)
from benchmarks.zonemaps.reads import METHODS, IndexMemory, Measure, build_baseline, index_memory, run_reads
from benchmarks.zonemaps.table import SmallFileTable, build_small_file_table

log = logging.getLogger("benchmarks.zonemaps")

NAME = "zonemaps"
TABLE = "events_small"
NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
MIB = 1024 * 1024
ZONEMAP = {"columns": ["event_time", "user_id", "country", "event_type"], "bloom_columns": ["user_id"],
           "bloom_hour_column": "event_time"}


@dataclass(frozen=True)
class Sizes:
    files: int = 10_080
    """One file per 2-minute batch over two weeks."""
    rows_per_file: int = 200
    days: int = 14
    repetitions: int = 7
    hot_hours: int = 24
    """The last hours stay in micro zonemaps (hot); older ones go to the daily master."""
    commit_hours: int = 4
    """One add_files commit (and one micro zonemap) per this many hours of batches."""
    selective_only: bool = False
    """Only the one-user_id queries (at 100,000 files the unselective ones read tens of thousands of files per method)."""


FULL = Sizes()
QUICK = Sizes(files=300, rows_per_file=100, repetitions=1, commit_hours=6)


@dataclass(frozen=True)
class Report:
    sizes: Sizes
    table: SmallFileTable
    reads: list[Measure]
    memory: IndexMemory
    seconds: float
    load: str = ""


def run(work_dir: Path, sizes: Sizes) -> Report:
    from lakeops.catalog import load_catalog
    from lakeops.spark.ingest_events import ensure_tables

    began = time.perf_counter()
    config = bench_config(work_dir, {TABLE: demo_table("events", zonemap=ZONEMAP)})
    spark = local_spark(config, "lakeops benchmark zonemaps")
    try:
        catalog = load_catalog(config.catalog)
        log.info("building the small-file table (%d files of %d rows over %d days)", sizes.files, sizes.rows_per_file,
                 sizes.days)
        ensure_tables(spark, catalog, config, TABLE)
        built = build_small_file_table(catalog.load_table(config.identifier(TABLE)), config.table(TABLE), sizes.files,
                                       sizes.rows_per_file, sizes.days, NOW, sizes.hot_hours, sizes.commit_hours)
        table = catalog.load_table(config.identifier(TABLE))
        built.build_seconds["baseline copy (Spark)"] = build_baseline(spark, config.qualified(TABLE))
        log.info("selective reads, %d repetitions each", sizes.repetitions)
        reads, _ = run_reads(spark, config.qualified(TABLE), table, NOW, sizes.repetitions, sizes.selective_only)
        memory = index_memory(table)
    finally:
        spark.stop()
    return Report(sizes, built, reads, memory, time.perf_counter() - began)


def reads_table(measures: list[Measure]) -> str:
    headers = ["query", "range", "method", "planning warm / cold", "files read", "MiB read", "wall warm", "wall cold",
               "vs spark (warm)", "rows"]
    spark = {(m.query, m.range): m.wall_s for m in measures if m.method == "spark"}
    rows = [[m.query, m.range, m.method,
             f"{m.planning_s * 1000:,.0f} / {m.cold_planning_s * 1000:,.0f} ms" if m.method != "oracle" else "-",
             f"{m.files:,}", f"{m.bytes / MIB:,.2f}", f"{m.wall_s * 1000:,.0f} ms", f"{m.cold_wall_s * 1000:,.0f} ms",
             f"{m.wall_s / spark[(m.query, m.range)]:.2f}x", f"{m.rows:,}"]
            for m in measures]
    return markdown_table(headers, rows)


def memory_line(memory: IndexMemory) -> str:
    return (f"Hot index in memory (lakeops.zonemap.hot, Arrow sizes): {memory.hot_entries:,} entries from "
            f"{memory.hot_files:,} micro zonemap files, {memory.hot_bytes / MIB:,.2f} MiB of a {memory.max_bytes / MIB:,.0f} MiB "
            f"bound ({memory.hot_bytes // max(memory.hot_entries, 1):,} bytes an entry, Bloom filter included). "
            f"Cold: the daily master on disk, {memory.master_entries:,} entries in {memory.master_bytes / MIB:,.2f} MiB, "
            "never held in memory.")


def render(report: Report) -> str:
    s, t = report.sizes, report.table
    load = report.load
    build = ", ".join(f"{k} {v:.0f} s" for k, v in t.build_seconds.items())
    return "\n".join([
        "# Zonemaps: selective reads on a table of many small files",
        "",
        f"One run, {report.seconds / 60:.1f} min, local Spark (`local[2]`) on a 2-core machine shared with other "
        "work: absolute times are noisy; compare the ratios within this run.",
        "",
        f"{t.files:,} Parquet files ({t.rows:,} rows, one file per micro-batch over {s.days} days, sorted by event_time), "
        f"registered in {t.commits:,} commits ({s.commit_hours} h of batches each) with pyiceberg add_files, one lakeops "
        f"micro zonemap per commit, then the daily consolidation of all but the last {s.hot_hours} h into the master "
        f"({build}). {load}. Hot: ranges ending at the table's newest data (zonemap entries of the last "
        f"{s.hot_hours} h in micro zonemaps); cold: ranges 7 to 14 days back (entries in the daily master). "
        "Files and bytes: spark from the Iceberg scan metrics "
        "(resultDataFiles, totalDataFileSize); the baseline: the same table copied by Spark into one with Iceberg's "
        "Parquet Bloom filter on user_id and ordered by user_id within each day; zonemap (Spark): "
        "lakeops.spark.zonemap_reads.pruned_frame, what lakeops.read returns (candidate_files(), then a few small "
        "candidates read in the driver into a local DataFrame (arrow), or their tasks staged from the index, "
        "or a plain Iceberg scan when the index prunes too little; the method says which); zonemap (pyiceberg): "
        "what `lakeops query` runs, no Spark (the same candidates, tasks built from the index, pyiceberg's Arrow "
        "reader); oracle: "
        "the files that truly hold a match, read by pyiceberg's Arrow reader. Planning: Iceberg's totalPlanningDuration "
        "for spark; for zonemap (Spark) everything before the frame exists (with the arrow method its rows are read by "
        "then; plus Iceberg's planning when it falls back to a plain scan); for zonemap (pyiceberg) the candidates and "
        "their tasks. Wall: until the rows are in the driver as Arrow (scan metrics are read after). Cold: median of "
        f"{s.repetitions} runs, each right after dropping the process's index caches and REFRESH TABLE; warm: median of "
        f"{s.repetitions} runs after them; before both, one unmeasured run of every method on another lookup loaded "
        "its code paths. Every method returned the same rows."
        + (" Only the one-user_id queries were run (--selective-only)." if s.selective_only else ""),
        "",
        reads_table(report.reads),
        "",
        memory_line(report.memory),
        "",
    ])


def plot(measures: list[Measure], name: str) -> Path:
    import numpy as np

    labels = list(dict.fromkeys(f"{m.query}\n({m.range})" for m in measures))
    fig, axes = pyplot().subplots(1, 3, figsize=(18, 6))
    width = 0.8 / len(METHODS)
    x = np.arange(len(labels))
    for ax, (title, value) in zip(axes, (("files read", lambda m: m.files), ("MiB read", lambda m: m.bytes / MIB),
                                         ("wall time (ms, median)", lambda m: m.wall_s * 1000)), strict=False):
        for i, method in enumerate(METHODS):
            values = [max(value(m), 1e-3) for m in measures if m.runner == method]
            ax.bar(x + (i - (len(METHODS) - 1) / 2) * width, values, width, label=method)
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xticks(x, labels, rotation=35, ha="right", fontsize=8)
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[0].legend()
    fig.suptitle("Reads on the small-file table: Spark + Iceberg pruning, Bloom-filter baseline, zonemap read, oracle (log)")
    return save_figure(fig, name, dpi=110)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m benchmarks {NAME}", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes: checks that it runs, in a few minutes")
    parser.add_argument("--work-dir", default=str(PROJECT_ROOT / "build" / "bench-zonemaps"),
                        help="scratch folder for the benchmark's catalog and warehouse (emptied first)")
    parser.add_argument("--files", type=int, help="files in the table instead of 10,080 (results named zonemaps_FILES)")
    parser.add_argument("--repetitions", type=int, help="cold and warm runs per query and method (their medians are "
                        "reported); default 7")
    parser.add_argument("--selective-only", action="store_true",
                        help="only the one-user_id queries (for --files 100000: the others read tens of thousands of "
                             "files); results named zonemaps_selective unless --files names them")
    args = parser.parse_args(argv)
    configure_logging(logging.INFO)
    for noisy in ("lakeops.zonemap", "lakeops.spark"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    work = Path(args.work_dir).resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    import os

    load = "Load average {:.1f} / {:.1f} / {:.1f} at the start".format(*os.getloadavg())
    sizes = QUICK if args.quick else FULL
    sizes = dataclasses.replace(sizes, files=args.files or sizes.files, selective_only=args.selective_only,
                                repetitions=args.repetitions or sizes.repetitions)
    report = run(work, sizes)
    report = dataclasses.replace(report, load=load + ", {:.1f} / {:.1f} / {:.1f} at the end".format(*os.getloadavg()))
    name = output_name(NAME, args.quick) + (f"_{args.files}" if args.files else "_selective" if args.selective_only else "")
    paths = write_results(name, render(report), {
        "sizes": dataclasses.asdict(report.sizes), "seconds": report.seconds, "table": dataclasses.asdict(report.table),
        "reads": [dataclasses.asdict(m) for m in report.reads], "memory": dataclasses.asdict(report.memory)})
    paths.append(plot(report.reads, name))
    print("written: " + ", ".join(str(p.relative_to(PROJECT_ROOT)) for p in paths))
    return 0
