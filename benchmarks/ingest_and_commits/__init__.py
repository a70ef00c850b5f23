"""Ingest and commits, side by side in one run (`python -m benchmarks ingest_and_commits [--quick]`):

A. end to end: 1, 4 and 16 concurrent writers over the same landed events, committing directly
   (each writer commits its own share) or staged + one committer (writers.py);
B. the commit path alone: the same data files committed by W committers at once, or by one
   (commit_path.py);
C. what zonemaps cost the writes: no zonemap, lakeops' micro zonemaps, and one master zonemap
   updated in every commit (zonemap_write.py, master_baseline.py).

Results: benchmarks/results/ingest_and_commits.md (.json beside it), the plots
ingest_and_commits.png (A and B) and ingest_and_commits_zonemap.png (C). Medians of rounds on a
shared machine: compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import shutil
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.common import (
    PROJECT_ROOT,
    bench_config,
    configure_logging,
    demo_table,
    markdown_table,
    output_name,
    pyplot,
    save_figure,
    write_results,
)
from benchmarks.ingest_and_commits.commit_path import SOURCE, run_commit_rounds, stage_units, table_name
from benchmarks.ingest_and_commits.writers import (
    MODES,
    RetryLog,
    Round,
    Summary,
    Variant,
    intervals,
    retry_log_options,
    run_rounds,
    summarize,
)
from benchmarks.ingest_and_commits.zonemap_write import VARIANTS as ZONEMAP_VARIANTS
from benchmarks.ingest_and_commits.zonemap_write import IngestSummary, run_ingest_rounds
from benchmarks.ingest_and_commits.zonemap_write import summarize as summarize_zonemap_rounds

log = logging.getLogger("benchmarks.ingest_and_commits")

NAME = "ingest_and_commits"
START = datetime(2026, 11, 24, 0, 0, tzinfo=UTC)
ZONEMAP_START = datetime(2026, 11, 23, 0, 0, tzinfo=UTC)
"""Part C's events land the day before part A's, so no table ingests another part's files."""
GOAL_SPEEDUP = 5.0
ZONEMAP = {"columns": ["event_time", "user_id", "country", "event_type"], "bloom_columns": ["user_id"]}
NO_ZONEMAP: dict[str, list[str]] = {"columns": [], "bloom_columns": []}


def events_table(zonemap: dict[str, list[str]]) -> dict[str, object]:
    return demo_table("events", zonemap=zonemap)


@dataclass(frozen=True)
class Sizes:
    writers: tuple[int, ...] = (1, 4, 16)
    batches_per_writer: int = 3
    """A and B: micro-batches each writer works through per round (direct: one commit each)."""
    rounds: int = 3
    files: int = 48
    """A and B: landed files per round (one a minute): every writer count splits the same files."""
    rows_per_file: int = 1000
    zonemap_writers: int = 2
    zonemap_batches_per_writer: int = 4
    zonemap_rounds: int = 3
    batch_minutes: int = 5
    events_per_minute: int = 1000
    seed_entries: int = 10_080
    """C: entries the seeded master starts with (a table of two weeks of 2-minute batches)."""


FULL = Sizes()
QUICK = Sizes(writers=(1, 4), batches_per_writer=1, rounds=1, files=8, rows_per_file=100, zonemap_batches_per_writer=1,
              zonemap_rounds=1, events_per_minute=100, seed_entries=500)


@dataclass(frozen=True)
class Report:
    sizes: Sizes
    summaries: list[Summary]
    rounds: list[Round]
    commit_summaries: list[Summary]
    commit_rounds: list[Round]
    zonemap: list[IngestSummary]
    seconds: float
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]


def run(work_dir: Path, sizes: Sizes) -> Report:
    from lakeops.catalog import load_catalog
    from lakeops.config import SparkConfig
    from lakeops.generator import generate_events
    from lakeops.spark.ingest_events import ensure_tables
    from lakeops.spark.session import build_session

    began, load_before = time.perf_counter(), os.getloadavg()
    variants = [Variant(mode, w) for w in sizes.writers for mode in MODES]
    tables = {v.table: events_table(ZONEMAP) for v in variants}
    tables.update({table_name(v): events_table(ZONEMAP) for v in variants})
    tables[SOURCE] = events_table(ZONEMAP)
    tables.update({v.table: events_table(NO_ZONEMAP if v.name == "no zonemap" else ZONEMAP) for v in ZONEMAP_VARIANTS})
    config = bench_config(work_dir, tables)
    log_path, java_options = retry_log_options(work_dir)
    config = dataclasses.replace(config, spark=SparkConfig(config.spark.conn_id, {
        **config.spark.conf, "spark.driver.extraJavaOptions": java_options}))
    spark = build_session(config, "lakeops benchmark ingest and commits", master="local[2]")
    spark.sparkContext.setLogLevel("ERROR")
    try:
        catalog = load_catalog(config.catalog)
        for name in [v.table for v in variants] + [table_name(v) for v in variants] + [SOURCE]:
            ensure_tables(spark, catalog, config, name)
        *spans, commit_span = intervals(START, sizes.rounds + 1, sizes.files)
        landed = [generate_events(config.landing_root, s, sizes.files, sizes.rows_per_file, seed=31 + i, users=20_000)
                  for i, (s, _) in enumerate([*spans, commit_span])]
        log.info("A: %d rounds (a warm-up included), each %d files x %d events; variants: %s", len(spans), sizes.files,
                 sizes.rows_per_file, ", ".join(f"{v.mode} x{v.writers}" for v in variants))
        rounds = run_rounds(spark, config, variants, spans, [g.good for g in landed], sizes.batches_per_writer,
                            RetryLog(log_path))
        log.info("B: staging %d shares of one interval once", max(sizes.writers) * sizes.batches_per_writer)
        units = stage_units(spark, config, *commit_span, max(sizes.writers) * sizes.batches_per_writer)
        minutes = (sizes.zonemap_rounds + 1) * sizes.zonemap_writers * sizes.zonemap_batches_per_writer * sizes.batch_minutes
        log.info("C: %d minutes of events, %d a minute", minutes, sizes.events_per_minute)
        generate_events(config.landing_root, ZONEMAP_START, minutes, sizes.events_per_minute, seed=21, users=20_000)
        zonemap_rounds = run_ingest_rounds(spark, config, ZONEMAP_START, sizes.zonemap_rounds, sizes.zonemap_writers,
                                           sizes.zonemap_batches_per_writer, sizes.batch_minutes, sizes.seed_entries)
    finally:
        spark.stop()
    commit_rounds = run_commit_rounds(config, variants, units, sizes.batches_per_writer, sizes.rounds)
    zonemap = [dataclasses.replace(s, variant=f"{s.variant} ({sizes.seed_entries:,} entries)") if "seeded" in s.variant else s
               for s in summarize_zonemap_rounds(zonemap_rounds)]
    return Report(sizes, summarize(rounds), rounds, summarize(commit_rounds), commit_rounds, zonemap,
                  time.perf_counter() - began, load_before, os.getloadavg())


def _load(values: tuple[float, float, float]) -> str:
    return " / ".join(f"{v:.1f}" for v in values)


def _table(summaries: list[Summary], seconds: str = "{:.1f} s") -> str:
    headers = ["writers", "mode", "rows committed of landed (median)", "wall time", "rows committed/s", "commits", "commits/s",
               "commit retries (all rounds)", "failed commits (all rounds)", "staged vs direct"]
    return markdown_table(headers, [
        [x.writers, x.mode, f"{x.rows:,} of {x.landed:,}", seconds.format(x.seconds), f"{x.rows_per_s:,.0f}", x.commits,
         f"{x.commits_per_s:.2f}", x.retries, x.failed, f"{x.speedup:.2f}x" if x.speedup else "-"] for x in summaries])


def goal(summaries: list[Summary], top: int) -> str:
    """The goal at the most writers: zero failed commits and GOAL_SPEEDUP x the direct rows/s."""
    staged = next((x for x in summaries if x.mode == "staged" and x.writers == top), None)
    if staged is None or staged.speedup is None:
        return ""
    met = staged.failed == 0 and staged.speedup >= GOAL_SPEEDUP
    return (f"Goal at {top} writers: zero failed commits and at least {GOAL_SPEEDUP:.0f}x the committed rows/s of direct "
            f"commits. Measured: {staged.failed} failed, {staged.speedup:.2f}x: **{'met' if met else 'missed'}**.")


def _errors(summaries: list[Summary]) -> list[str]:
    errors = [f"* {x.mode} x{x.writers}: {e}" for x in summaries for e in x.errors[:3]]
    return ["Why commits failed (first distinct errors):", "", *errors, ""] if errors else []


def zonemap_table(summaries: list[IngestSummary]) -> str:
    headers = ["variant", "writers", "batches", "rows", "rows/s (median)", "Iceberg commits", "lock wait / batch",
               "lock held / batch", "write impact vs no zonemap"]
    rows = [[s.variant, s.writers, s.batches, f"{s.rows:,}", f"{s.rows_per_s:,.0f}", s.commits,
             f"{s.lock_wait_per_batch_s:.2f} s" if "master" in s.variant else "-",
             f"{s.lock_held_per_batch_s:.2f} s" if "master" in s.variant else "-",
             "baseline" if i == 0 else f"{s.impact_pct:+.1f} %"] for i, s in enumerate(summaries)]
    return markdown_table(headers, rows)


def render(report: Report) -> str:
    s = report.sizes
    top = max(s.writers)
    return "\n".join([
        "# Ingest and commits",
        "",
        f"One run, {report.seconds / 60:.1f} min, local Spark (`local[2]`) on a 2-core machine shared with other work "
        f"(load average 1/5/15 min: {_load(report.load_before)} at the start, {_load(report.load_after)} at the end): "
        "absolute times are noisy; compare the ratios within this run.",
        "",
        "## A. Direct vs staged commits, end to end: parse, write and commit",
        "",
        f"Each round lands {s.files} files of {s.rows_per_file:,} events (0.5% bad lines) and every variant ingests that "
        f"round's interval into its own table. With W writers the files are split into W x {s.batches_per_writer} "
        "micro-batches (lakeops.staging.plan.split_files, balanced by bytes); the writers run side by side as threads "
        f"with a Spark session each, every writer working through its {s.batches_per_writer} micro-batches one after the "
        "other. direct: every micro-batch is lakeops' direct ingest (parse, quarantine, write, stage, publish: 4 commits "
        "with its quarantine rows) and commits itself; Iceberg retries a commit that lost a race (commit.retry.num-retries "
        "4, backoff from 100 ms), counted from its own log; a micro-batch whose commit still fails is a failed commit and "
        "its rows are not committed. staged: every micro-batch is a staged writer share (data files + manifest, no "
        f"commit), then one committer commits all files in one commit per table. {s.rounds} timed round(s) after one "
        "untimed warm-up, variants in rotating order; rows committed/s = rows committed / wall time from the writers' "
        "start to the last commit.",
        "",
        _table(report.summaries),
        "",
        goal(report.summaries, top),
        "",
        *_errors(report.summaries),
        "## B. The commit path alone",
        "",
        f"The events data files of one more interval ({s.files} files), written once by {top * s.batches_per_writer} staged "
        "writer shares and never committed there, are committed to one table per variant, once per round. direct: W "
        f"committer processes side by side, each committing its {s.batches_per_writer} micro-batches (the shares grouped "
        "W x batches ways) one pyiceberg append each, with pyiceberg's own commit retries (4, backoff from 100 ms, counted "
        "from its warning); staged: lakeops' committer commits every file in one append. Wall time from the first commit "
        "to the last (committer processes started and warmed before). Same rounds and rotation as A.",
        "",
        _table(report.commit_summaries, "{:.2f} s"),
        "",
        goal(report.commit_summaries, top),
        "",
        *_errors(report.commit_summaries),
        "## C. What zonemaps cost the writes",
        "",
        f"The same landed events ({s.events_per_minute:,} a minute, 20,000 Zipf users, 0.5% bad lines) ingested into one "
        f"table per variant: {s.zonemap_rounds} round(s) x {s.zonemap_writers} concurrent writers x "
        f"{s.zonemap_batches_per_writer} batch(es) of {s.batch_minutes} minutes each, fresh intervals every round, variants "
        "in rotating order, after one untimed warm-up round. Every batch is lakeops' ingest (parse, quarantine, stage, "
        "publish). The master baseline stages the same way, builds the same entries, then under the table's commit lock "
        "reads the master, appends its entries, writes it and publishes batch + master pointer in one Iceberg "
        f"transaction. 'seeded' starts the master with {s.seed_entries:,} entries shaped like those of 2-minute batch files.",
        "",
        zonemap_table(report.zonemap),
        "",
    ])


def _plot_row(axes, summaries: list[Summary], writers: list[int], part: str, log_rows: bool = False) -> None:
    import numpy as np

    x = np.arange(len(writers))
    by = {(s.mode, s.writers): s for s in summaries}
    panels = (("rows committed / s (median)", lambda s: s.rows_per_s),
              ("Iceberg commits / s (median)", lambda s: s.commits_per_s),
              ("commit retries + failed commits (all rounds)", lambda s: s.retries + s.failed))
    for ax, (title, value) in zip(axes, panels, strict=False):
        for i, (mode, color) in enumerate(zip(MODES, ("tab:red", "tab:green"), strict=False)):
            values = [value(by[(mode, w)]) if (mode, w) in by else 0 for w in writers]
            bars = ax.bar(x + (i - 0.5) * 0.4, values, 0.4, label=mode, color=color)
            if ax is axes[0]:
                for bar, w in zip(bars, writers, strict=False):
                    s = by.get((mode, w))
                    if s is not None and s.speedup:
                        ax.annotate(f"{s.speedup:.1f}x", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                                    ha="center", va="bottom")
        ax.set_xticks(x, [f"{w} writers" for w in writers])
        if log_rows and ax is axes[0]:
            ax.set_yscale("log")
            title += ", log scale"
        ax.set_title(f"{part}: {title}", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend()


def plot_commits(report: Report, name: str) -> Path:
    writers = list(report.sizes.writers)
    fig, axes = pyplot().subplots(2, 3, figsize=(16, 9))
    _plot_row(axes[0], report.summaries, writers, "A. end to end")
    _plot_row(axes[1], report.commit_summaries, writers, "B. commit path alone", log_rows=True)
    fig.suptitle(f"Direct commits vs staged writers + one committer, same {report.sizes.files} files a round "
                 f"(load average {_load(report.load_before)})")
    return save_figure(fig, name, dpi=110)


def plot_zonemap_writes(summaries: list[IngestSummary], name: str) -> Path:
    fig, ax = pyplot().subplots(figsize=(10, 5))
    names = [s.variant.replace(" in every commit", "\nin every commit") for s in summaries]
    bars = ax.bar(names, [s.rows_per_s for s in summaries], color=["grey", "tab:green", "tab:red", "darkred"][:len(summaries)])
    for bar, s, i in zip(bars, summaries, range(len(summaries)), strict=False):
        ax.annotate("baseline" if i == 0 else f"{s.impact_pct:+.1f} %", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    ha="center", va="bottom")
    ax.set_ylabel("rows/s (median of rounds)")
    ax.set_title(f"Ingest throughput, {summaries[0].writers} concurrent writers, same landed events")
    return save_figure(fig, name, dpi=110)


def data(report: Report) -> dict[str, object]:
    """Every round and summary, for the .json beside the report."""
    def rounds(found: list[Round]) -> list[dict[str, object]]:
        return [{**dataclasses.asdict(r), "rows_per_s": r.rows_per_s} for r in found]

    return {"sizes": dataclasses.asdict(report.sizes), "seconds": report.seconds, "load_before": report.load_before,
            "load_after": report.load_after, "summaries": [dataclasses.asdict(s) for s in report.summaries],
            "rounds": rounds(report.rounds), "commit_summaries": [dataclasses.asdict(s) for s in report.commit_summaries],
            "commit_rounds": rounds(report.commit_rounds), "zonemap": [dataclasses.asdict(s) for s in report.zonemap]}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m benchmarks {NAME}", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes: checks that it runs, in a few minutes")
    parser.add_argument("--work-dir", default=str(PROJECT_ROOT / "build" / "bench-ingest-and-commits"),
                        help="scratch folder for the benchmark's catalog, warehouse and landing zone (emptied first)")
    args = parser.parse_args(argv)
    configure_logging(logging.INFO)
    for noisy in ("lakeops", "benchmarks.ingest_and_commits.master_baseline"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    # Staged writers run pyiceberg in Spark's Python workers: this interpreter's packages.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    work = Path(args.work_dir)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    report = run(work, QUICK if args.quick else FULL)
    name = output_name(NAME, args.quick)
    paths = write_results(name, render(report), data(report))
    paths += [plot_commits(report, name), plot_zonemap_writes(report.zonemap, output_name(f"{NAME}_zonemap", args.quick))]
    print("written: " + ", ".join(str(p.relative_to(PROJECT_ROOT)) for p in paths))
    return 0
