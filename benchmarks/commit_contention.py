"""Commit contention: 1, 4 and 16 concurrent writers over the same landed events, committing
directly (each writer commits its own share) or staged + one committer (`make bench-commit_contention`;
`--quick` for a smoke run). See benchmarks/commit_contention_core.py for the method.

Results: a Markdown table printed and written to benchmarks/results/commit_contention.md (JSON beside
it), the plot in benchmarks/results/commit_contention.png. Medians of rounds; compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import shutil
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.commit_contention_commits import SOURCE, run_commit_rounds, stage_units, table_name
from benchmarks.commit_contention_core import (
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
from benchmarks.results import markdown_table, results_path
from benchmarks.zonemap_env import ZONEMAP, bench_config, events_table, with_catalog
from lakeops.catalog import load_catalog
from lakeops.generator import generate_events
from lakeops.spark.ingest_events import ensure_tables

log = logging.getLogger("benchmarks.commit_contention")

PROJECT_ROOT = Path(__file__).resolve().parents[1]
START = datetime(2026, 11, 24, 0, 0, tzinfo=UTC)
GOAL_SPEEDUP = 5.0


@dataclass(frozen=True)
class Sizes:
    writers: tuple[int, ...] = (1, 4, 16)
    batches_per_writer: int = 3
    """Micro-batches each writer works through per round (direct: one commit each)."""
    rounds: int = 3
    files: int = 48
    """Landed files per round (one a minute): every writer count splits the same files."""
    rows_per_file: int = 1000


QUICK = Sizes(writers=(1, 4, 16), batches_per_writer=2, rounds=1, files=32, rows_per_file=200)


@dataclass(frozen=True)
class Report:
    sizes: Sizes
    summaries: list[Summary]
    rounds: list[Round]
    commit_summaries: list[Summary]
    """Part B: the commit path alone."""
    commit_rounds: list[Round]
    seconds: float
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]


def run(work_dir: Path, sizes: Sizes) -> Report:
    from lakeops.config import SparkConfig, load_config
    from lakeops.spark.session import build_session

    began, load_before = time.perf_counter(), os.getloadavg()
    variants = [Variant(mode, w) for w in sizes.writers for mode in MODES]
    tables = {v.table: events_table(ZONEMAP) for v in variants}
    tables.update({table_name(v): events_table(ZONEMAP) for v in variants})
    tables[SOURCE] = events_table(ZONEMAP)
    config = bench_config(work_dir, tables)
    log_path, java_options = retry_log_options(work_dir)
    base = load_config()
    base = dataclasses.replace(base, spark=SparkConfig(base.spark.conn_id, {**base.spark.conf,
                                                                            "spark.driver.extraJavaOptions": java_options}))
    spark = build_session(base, "lakeops benchmark commit contention", master="local[2]")
    try:
        with_catalog(spark, config)
        catalog = load_catalog(config.catalog)
        for name in tables:
            ensure_tables(spark, catalog, config, name)
        *spans, commit_span = intervals(START, sizes.rounds + 1, sizes.files)
        landed = [generate_events(config.landing_root, s, sizes.files, sizes.rows_per_file, seed=31 + i, users=20_000)
                  for i, (s, _) in enumerate([*spans, commit_span])]
        log.info("landed %d rounds (a warm-up included) and one interval for B, each %d files x %d events; variants: %s",
                 len(spans), sizes.files, sizes.rows_per_file,
                 ", ".join(f"{v.mode} x{v.writers}" for v in variants))
        rounds = run_rounds(spark, config, variants, spans, [g.good for g in landed], sizes.batches_per_writer,
                            RetryLog(log_path))
        shares = max(sizes.writers) * sizes.batches_per_writer
        log.info("B: staging %d shares of one interval once, for the commit-only rounds", shares)
        units = stage_units(spark, config, *commit_span, shares)
    finally:
        spark.stop()
    commit_rounds = run_commit_rounds(config, variants, units, sizes.batches_per_writer, sizes.rounds)
    return Report(sizes, summarize(rounds), rounds, summarize(commit_rounds), commit_rounds, time.perf_counter() - began,
                  load_before, os.getloadavg())


def _load(values: tuple[float, float, float]) -> str:
    return " / ".join(f"{v:.1f}" for v in values)


def _table(summaries: list[Summary], seconds: str = "{:.1f} s") -> str:
    headers = ["writers", "mode", "rows committed of landed (median)", "wall time", "rows committed/s", "commits", "commits/s",
               "commit retries (all rounds)", "failed commits (all rounds)", "staged vs direct"]
    return markdown_table(headers, [
        [x.writers, x.mode, f"{x.rows:,} of {x.landed:,}", seconds.format(x.seconds), f"{x.rows_per_s:,.0f}", x.commits,
         f"{x.commits_per_s:.2f}", x.retries, x.failed, f"{x.speedup:.2f}x" if x.speedup else "-"] for x in summaries])


def _goal(summaries: list[Summary], top: int) -> str:
    staged = next((x for x in summaries if x.mode == "staged" and x.writers == top), None)
    if staged is None or staged.speedup is None:
        return ""
    met = staged.failed == 0 and staged.speedup >= GOAL_SPEEDUP
    return (f"Goal at {top} writers: zero failed commits and at least {GOAL_SPEEDUP:.0f}x the committed rows/s of direct "
            f"commits. Measured: {staged.failed} failed, {staged.speedup:.2f}x: **{'met' if met else 'missed'}**.")


def _errors(summaries: list[Summary]) -> list[str]:
    errors = [f"* {x.mode} x{x.writers}: {e}" for x in summaries for e in x.errors[:3]]
    return ["Why commits failed (first distinct errors):", "", *errors, ""] if errors else []


def render(report: Report) -> str:
    s = report.sizes
    top = max(s.writers)
    return "\n".join([
        "# Commit contention: direct commits vs staged writers + one committer",
        "",
        f"One run, {report.seconds / 60:.1f} min, local Spark (`local[2]`) on a 2-core machine shared with other work "
        f"(load average 1/5/15 min: {_load(report.load_before)} at the start, {_load(report.load_after)} at the end): "
        "absolute times are noisy; compare the ratios within this run.",
        "",
        "## A. End to end: parse, write and commit",
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
        _goal(report.summaries, top),
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
        _goal(report.commit_summaries, top),
        "",
        *_errors(report.commit_summaries),
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


def plot(report: Report, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    writers = list(report.sizes.writers)
    fig, axes = plt.subplots(2, 3, figsize=(16, 9))
    _plot_row(axes[0], report.summaries, writers, "A. end to end")
    _plot_row(axes[1], report.commit_summaries, writers, "B. commit path alone", log_rows=True)
    fig.suptitle(f"Direct commits vs staged writers + one committer, same {report.sizes.files} files a round "
                 f"(load average {_load(report.load_before)})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_results(name: str, report: Report, text: str) -> list[Path]:
    md, data = results_path(name, ".md"), results_path(name, ".json")
    md.write_text(text)
    data.write_text(json.dumps({"sizes": dataclasses.asdict(report.sizes), "seconds": report.seconds,
                                "load_before": report.load_before, "load_after": report.load_after,
                                "summaries": [dataclasses.asdict(s) for s in report.summaries],
                                "rounds": [{**dataclasses.asdict(r), "rows_per_s": r.rows_per_s} for r in report.rounds],
                                "commit_summaries": [dataclasses.asdict(s) for s in report.commit_summaries],
                                "commit_rounds": [{**dataclasses.asdict(r), "rows_per_s": r.rows_per_s}
                                                  for r in report.commit_rounds]},
                               indent=1))
    return [md, data, plot(report, results_path(name, ".png"))]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run of a few minutes")
    parser.add_argument("--rounds", type=int, help="timed rounds per variant (median reported)")
    parser.add_argument("--files", type=int, help="landed files per round (default 48)")
    parser.add_argument("--batches-per-writer", type=int, help="micro-batches each writer works through per round (default 3)")
    parser.add_argument("--rows-per-file", type=int, help="events per landed file (default 1,000)")
    parser.add_argument("--writers", help="comma-separated writer counts (default 1,4,16)")
    parser.add_argument("--work-dir", default=str(PROJECT_ROOT / "build" / "bench-commit-contention"),
                        help="scratch folder for the benchmark's catalog, warehouse and landing zone (emptied first)")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else Sizes()
    for key in ("rounds", "files", "rows_per_file", "batches_per_writer"):
        value = getattr(args, key)
        if value is not None:
            if value < 1:
                parser.error(f"--{key.replace('_', '-')} {value} must be at least 1")
            sizes = dataclasses.replace(sizes, **{key: value})
    if args.writers:
        try:
            counts = tuple(int(w) for w in args.writers.split(","))
        except ValueError:
            parser.error(f"--writers {args.writers!r} must be comma-separated whole numbers, e.g. 1,4,16")
        if any(w < 1 for w in counts):
            parser.error(f"--writers {args.writers!r}: every count must be at least 1")
        sizes = dataclasses.replace(sizes, writers=counts)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for noisy in ("lakeops", "py4j", "pyiceberg"):
        logging.getLogger(noisy).setLevel(logging.ERROR)

    # Staged writers run pyiceberg in Spark's Python workers: this interpreter's packages (make exports it too).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    work = Path(args.work_dir)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    report = run(work, sizes)
    text = render(report)
    paths = write_results("commit_contention_quick" if args.quick else "commit_contention", report, text)
    print(text)
    print("written: " + ", ".join(str(p.relative_to(PROJECT_ROOT)) for p in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
