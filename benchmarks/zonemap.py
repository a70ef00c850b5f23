"""Zonemap benchmark, side by side in one run (`make bench-zonemap`; `--quick` for a smoke run):

A. ingest throughput of the same landed events with no zonemap, with lakeops' micro zonemaps,
   and with one master zonemap updated in every commit (benchmark-local baseline);
B. selective reads on a table of many small files: Spark with Iceberg's pruning, lakeops'
   zonemap-pruned read, and the oracle, for recent (hot) and old (cold) ranges.

Results: a Markdown table printed and written to benchmarks/results/zonemap.md, plots in
benchmarks/results/zonemap_*.png. Timings are medians; compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import sys
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.zonemap_env import NO_ZONEMAP, ZONEMAP, bench_config, events_table, with_catalog
from benchmarks.zonemap_ingest import VARIANTS, IngestSummary, run_ingest_rounds, summarize
from benchmarks.zonemap_reads import IndexMemory, Measure, index_memory, run_reads
from benchmarks.zonemap_report import ingest_table, memory_line, reads_table, write_results
from benchmarks.zonemap_table import SmallFileTable, build_small_file_table
from lakeops.catalog import load_catalog
from lakeops.generator import generate_events
from lakeops.spark.ingest_events import ensure_tables

if TYPE_CHECKING:
    import pyarrow as pa
    from pyiceberg.table import Table
    from pyspark.sql import SparkSession

log = logging.getLogger("benchmarks.zonemap")

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SMALL = "events_small"
NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
INGEST_START = datetime(2026, 11, 23, 0, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Sizes:
    files: int = 10_080
    """Small-file table: one file per 2-minute batch over 14 days."""
    rows_per_file: int = 200
    days: int = 14
    repetitions: int = 3
    rounds: int = 5
    writers: int = 2
    batches_per_writer: int = 4
    batch_minutes: int = 5
    events_per_minute: int = 1000
    hot_hours: int = 24
    commit_hours: int = 1
    """Small-file table: one add_files commit (and one micro zonemap) per this many hours of batches."""
    """The small-file table's last hours stay in micro zonemaps (hot); older ones go to the daily master."""


QUICK = Sizes(files=300, rows_per_file=100, days=14, repetitions=1, rounds=1, writers=2, batches_per_writer=1,
              events_per_minute=200, commit_hours=6)


@dataclass(frozen=True)
class Report:
    sizes: Sizes
    table: SmallFileTable
    ingest: list[IngestSummary]
    reads: list[Measure]
    memory: IndexMemory
    seconds: float


def _index_entries(table: Table) -> pa.Table:
    """Every zonemap entry of the small-file table (daily master + micro files), as stored."""
    import pyarrow as pa

    from lakeops.zonemap.index import index_files
    from lakeops.zonemap.store import read_file

    files = index_files(table.location())
    return pa.concat_tables([read_file(uri) for uri in ([files.master] if files.master else []) + files.micro])


def run(spark: SparkSession, work_dir: Path, sizes: Sizes) -> Report:
    """The whole benchmark on a fresh catalog under work_dir, on a running Spark session."""
    began = time.perf_counter()
    tables = {SMALL: events_table(ZONEMAP)}
    for v in VARIANTS:
        tables[v.table] = events_table(NO_ZONEMAP if v.name == "no zonemap" else ZONEMAP)
    config = bench_config(work_dir, tables)
    with_catalog(spark, config)
    catalog = load_catalog(config.catalog)

    log.info("B: building the small-file table (%d files of %d rows over %d days)", sizes.files, sizes.rows_per_file, sizes.days)
    ensure_tables(spark, catalog, config, SMALL)
    small = catalog.load_table(config.identifier(SMALL))
    built = build_small_file_table(small, config.table(SMALL), sizes.files, sizes.rows_per_file, sizes.days, NOW,
                                   sizes.hot_hours, sizes.commit_hours)
    small = catalog.load_table(config.identifier(SMALL))

    minutes = (sizes.rounds + 1) * sizes.writers * sizes.batches_per_writer * sizes.batch_minutes
    log.info("A: landing %d minutes of events", minutes)
    generate_events(config.landing_root, INGEST_START, minutes, sizes.events_per_minute, seed=21, users=20_000)
    seed = _index_entries(small)
    rounds = run_ingest_rounds(spark, config, INGEST_START, sizes.rounds, sizes.writers, sizes.batches_per_writer,
                               sizes.batch_minutes, seed)
    ingest = summarize(rounds)
    ingest = [replace(s, variant=f"{s.variant} ({seed.num_rows:,} entries)") if "seeded" in s.variant else s for s in ingest]

    log.info("B: selective reads, %d repetitions each", sizes.repetitions)
    reads, _ = run_reads(spark, config.qualified(SMALL), small, NOW, sizes.repetitions)
    return Report(sizes, built, ingest, reads, index_memory(small), time.perf_counter() - began)


def render(report: Report) -> str:
    s, t = report.sizes, report.table
    build = ", ".join(f"{k} {v:.0f} s" for k, v in t.build_seconds.items())
    return "\n".join([
        "# Zonemap benchmark",
        "",
        f"One run, {report.seconds / 60:.1f} min, local Spark (`local[2]`) on a 2-core machine shared with other "
        "work: absolute times are noisy; compare the ratios within this run.",
        "",
        "## A. Ingest throughput",
        "",
        f"The same landed events ({s.events_per_minute:,} a minute, 20,000 Zipf users, 0.5% bad lines) ingested into one table "
        f"per variant: {s.rounds} round(s) x {s.writers} concurrent writers x {s.batches_per_writer} batch(es) of "
        f"{s.batch_minutes} minutes each, fresh intervals every round, variants in rotating order, after one untimed "
        "warm-up round. Writers are threads with a Spark session each on one local Spark; every batch is lakeops' ingest "
        "(parse, quarantine, stage, publish). "
        "The master baseline stages the same way, builds the same entries, then under the table's commit lock reads the "
        "master, appends its entries, writes it and publishes batch + master pointer in one Iceberg transaction. "
        "'seeded' starts the master with the small-file table's entries.",
        "",
        ingest_table(report.ingest),
        "",
        "## B. Selective reads on a table of many small files",
        "",
        f"{t.files:,} Parquet files ({t.rows:,} rows, one file per micro-batch over {s.days} days, sorted by event_time), "
        f"registered in {t.commits:,} commits ({s.commit_hours} h of batches each) with pyiceberg add_files, one lakeops "
        f"micro zonemap per commit, then the daily consolidation of all but the last {s.hot_hours} h into the master ({build}). "
        f"Hot: ranges ending at the table's newest data (zonemap entries of the last {s.hot_hours} h in memory); cold: "
        f"ranges 7 to 14 days back (entries in the daily master on disk, read per lookup). Median of {s.repetitions} "
        "repetition(s) after a warm-up. Files and bytes: spark from the Iceberg scan metrics (resultDataFiles, "
        "totalDataFileSize); zonemap (pyarrow): lakeops.zonemap.reads (candidate_files() intersected with pyiceberg's "
        "planned tasks, read by pyiceberg's Arrow reader); zonemap (Spark): lakeops.spark.zonemap_reads.pruned_frame "
        "(candidate files' tasks staged as an Iceberg scan task set); oracle: the files that truly hold a match, read "
        "by pyiceberg's Arrow reader. Planning: Iceberg's totalPlanningDuration for spark; everything before the first "
        "row is read for the zonemap paths (candidate_files() with pyiceberg's plan of the live files, plus the task "
        "planning). Every method returned the same rows.",
        "",
        reads_table(report.reads),
        "",
        memory_line(report.memory),
        "",
    ])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run of a few minutes")
    parser.add_argument("--files", type=int, help="small-file table size (default 10,080; quick 240)")
    parser.add_argument("--repetitions", type=int, help="timed runs per query and method (median reported)")
    parser.add_argument("--rounds", type=int, help="ingest rounds per variant (median rows/s reported)")
    parser.add_argument("--writers", type=int, help="concurrent ingest writers")
    parser.add_argument("--commit-hours", type=int, help="small-file table: hours of batches per add_files commit (default 1)")
    parser.add_argument("--work-dir", default=str(PROJECT_ROOT / "build" / "bench-zonemap"),
                        help="scratch folder for the benchmark's catalog, warehouse and landing zone (emptied first)")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else Sizes()
    for key in ("files", "repetitions", "rounds", "writers", "commit_hours"):
        if getattr(args, key) is not None:
            if getattr(args, key) < 1:
                parser.error(f"--{key.replace('_', '-')} {getattr(args, key)} must be at least 1")
            sizes = replace(sizes, **{key: getattr(args, key)})
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for noisy in ("lakeops.zonemap", "lakeops.spark", "py4j"):
        logging.getLogger(noisy).setLevel(logging.WARNING)

    from lakeops.spark.session import build_session

    work = Path(args.work_dir)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    from lakeops.config import load_config

    spark = build_session(load_config(), "lakeops benchmark zonemap", master="local[2]")
    spark.sparkContext.setLogLevel("ERROR")
    try:
        report = run(spark, work, sizes)
    finally:
        spark.stop()
    text = render(report)
    name = "zonemap_quick" if args.quick else "zonemap"
    paths = write_results(name, text, report.ingest, report.reads)
    print(text)
    print("written: " + ", ".join(str(p.relative_to(PROJECT_ROOT)) for p in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
