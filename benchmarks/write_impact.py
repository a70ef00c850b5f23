"""The seed's write-impact table: what zonemaps cost ingest throughput at commit intervals of 1, 2, 5 and 15 s,
with 1 and 4 concurrent writers.

Each cell (commit interval I, writers W) ingests the same landed events, 43,000 rows per second of data in files of
one second each (43,000 / W rows, one file per writer per second), into a fresh table per variant and round:

* no zonemap: lakeops' one-pass streaming commit (commit_events_one_pass) on a table with no zonemap columns;
* micro zonemap (lakeops): the same commit as shipped, a micro zonemap written after each commit;
* master zonemap in every commit: the same parse and writes, the master (starting from SEED_ENTRIES entries, a table
  that already holds that many files) rewritten and published in the data's commit under a commit lock
  (master_baseline.commit_one_pass_with_master).

A commit interval of I s means each commit carries I seconds of data: every writer works through its batches of I
files one after the other, as fast as it can, so the rows/s measured are the most the variant sustains at that
commit rate. Writers are threads of this process, each with its own Spark session, on one local Spark of 2 cores.
The variants of a cell run in rotating order, cells interleaved across rounds; medians of the timed rounds after
one warm-up cell. Throughput: rows committed / wall time from the writers' start to their last commit.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from urllib.parse import urlparse

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
    writer_session,
)

log = logging.getLogger("benchmarks.write_impact")

NAME = "write_impact"
TARGET = 43_000
EVENT_TIME = "2026-11-27T10:00:00Z"
"""Every landed row's event time: one day partition, as a live stream's files hold."""
ZONEMAP = {"columns": ["event_time", "user_id", "country", "event_type"], "bloom_columns": ["user_id"]}
NO_ZONEMAP: dict[str, list[str]] = {"columns": [], "bloom_columns": []}
VARIANTS = ("no zonemap", "micro zonemap (lakeops)", "master zonemap in every commit")
SLUGS = dict(zip(VARIANTS, ("none", "micro", "master"), strict=True))


@dataclass(frozen=True)
class Cell:
    interval: int
    writers: int


@dataclass(frozen=True)
class Sizes:
    rate: int = TARGET
    """Rows per second of data, over all writers."""
    intervals: tuple[int, ...] = (1, 2, 5, 15)
    writers: tuple[int, ...] = (1, 4)
    rounds: int = 3
    min_seconds: int = 10
    """Seconds of data per cell: the larger of this and two commit intervals."""
    seed_entries: int = 10_080
    """Entries the master starts with (two weeks of 2-minute batches)."""

    def seconds(self, interval: int) -> int:
        return max(self.min_seconds, 2 * interval)

    def cells(self) -> list[Cell]:
        return [Cell(i, w) for w in self.writers for i in self.intervals]


FULL = Sizes()
QUICK = Sizes(rate=2_000, intervals=(1, 5), writers=(1, 2), rounds=1, min_seconds=4, seed_entries=200)


@dataclass(frozen=True)
class Run:
    variant: str
    cell: Cell
    round: int
    rows: int
    commits: int
    seconds: float
    zonemap_s: float
    """Seconds spent writing micro zonemaps, over all batches."""
    lock_wait_s: float
    lock_held_s: float

    @property
    def rows_per_s(self) -> float:
        return self.rows / self.seconds


@dataclass(frozen=True)
class Summary:
    interval: int
    writers: int
    variant: str
    rounds: int
    rows_per_s: float
    """Median over rounds."""
    impact_pct: float
    """Median rows/s against the no-zonemap variant's in the same cell, in %: negative is slower."""
    commits_per_s: float
    zonemap_per_commit_s: float
    lock_wait_per_commit_s: float
    lock_held_per_commit_s: float
    low: float = 0.0
    """Slowest round's rows/s: the spread shows how far the noise reaches."""
    high: float = 0.0
    """Fastest round's rows/s."""
    overhead_pct: float = 0.0
    """The variant's own work on the writers' path, in % of their time: the micro zonemap's write (micro), the wait
    for and the hold of the commit lock (master). Read from the run's clocks, not from a difference of two noisy
    rates; the master's entry building outside the lock (the micro zonemap's work) is not in it."""


def land(root: Path, writers: int, seconds: int, rate: int) -> list[list[str]]:
    """Per writer, its `seconds` files of rate / writers rows each (file k holds second k of its share)."""
    from lakeops.generator.files import write_jsonl
    from lakeops.generator.paced import EventPool

    pool, rows = EventPool(), rate // writers
    files: list[list[str]] = []
    for w in range(writers):
        folder = root / f"w{writers}" / f"writer{w}"
        names = []
        for k in range(seconds):
            name = f"w{writers}-{w}-{k:04d}"
            write_jsonl(str(folder), f"{name}.jsonl", pool.lines(name, rows, EVENT_TIME)[0])
            names.append(str(folder / f"{name}.jsonl"))
        files.append(names)
    return files


def table_name(variant: str, cell: Cell, round_: int) -> str:
    return f"wi_{SLUGS[variant]}_{cell.interval}s_{cell.writers}w_r{round_}"


def events_table(variant: str) -> dict[str, object]:
    """The shipped events table, with or without zonemap columns, committing each micro-batch in one pass."""
    entry = demo_table("events")
    return {**entry, "zonemap": NO_ZONEMAP if variant == VARIANTS[0] else ZONEMAP,
            "ingest": {**entry.get("ingest", {}), "mode": "streaming", "commit_mode": "staged"}}


def _writer(session, config, variant: str, table: str, batches: list[tuple[str, list[str]]]) -> tuple[int, float, float, float]:
    """(rows, zonemap s, lock waited s, lock held s) of one writer's batches, committed one after the other."""
    from benchmarks.ingest_and_commits.master_baseline import commit_one_pass_with_master
    from lakeops.catalog import load_catalog
    from lakeops.spark.ingest_events import event_columns, landed_lines, parsed_lines
    from lakeops.spark.one_pass_commit import commit_events_one_pass

    catalog = load_catalog(config.catalog)
    columns = event_columns(catalog.load_table(config.identifier(table)))
    rows = 0
    zonemap = waited = held = 0.0
    for batch_id, files in batches:
        parsed = parsed_lines(landed_lines(session, files), columns, config.table(table).ingest)
        if variant == VARIANTS[2]:
            result, w, h = commit_one_pass_with_master(session, catalog, config, table, parsed, batch_id)
            waited, held = waited + w, held + h
        else:
            result = commit_events_one_pass(session, catalog, config, table, parsed, batch_id, len(files))
            zonemap += result.phases.get("zonemap", 0.0)
        if result.status != "committed":
            raise RuntimeError(f"{variant}: batch {batch_id} of {table} was {result.status}, not committed")
        rows += result.rows
    return rows, zonemap, waited, held


def run_cell(spark, config, variant: str, cell: Cell, round_: int, files: list[list[str]], seconds: int,
             seed) -> Run:
    """One variant's ingest of a cell's data into a fresh table: every writer's batches of `interval` files."""
    from benchmarks.ingest_and_commits.master_baseline import seed_master
    from lakeops.catalog import load_catalog
    from lakeops.ingest.stream import micro_batch_id
    from lakeops.spark.ingest_events import ensure_tables

    table = table_name(variant, cell, round_)
    catalog = load_catalog(config.catalog)
    sessions = [writer_session(spark, config) for _ in range(cell.writers)]
    ensure_tables(sessions[0], catalog, config, table)
    if variant == VARIANTS[2]:
        seed_master(catalog.load_table(config.identifier(table)), seed)
    spec_name = config.table(table).name
    shares = [[(micro_batch_id(spec_name, f"writer{w}", j), mine[j * cell.interval:(j + 1) * cell.interval])
               for j in range(seconds // cell.interval)] for w, mine in enumerate(files)]
    began = time.perf_counter()
    with ThreadPoolExecutor(cell.writers) as pool:
        done = list(pool.map(_writer, sessions, [config] * cell.writers, [variant] * cell.writers,
                             [table] * cell.writers, shares))
    elapsed = time.perf_counter() - began
    run = Run(variant, cell, round_, sum(d[0] for d in done), sum(len(s) for s in shares), elapsed,
              sum(d[1] for d in done), sum(d[2] for d in done), sum(d[3] for d in done))
    log.info("round %d, %ds x %d writers, %s: %d rows in %.1f s (%.0f rows/s), %d commits", round_, cell.interval,
             cell.writers, variant, run.rows, elapsed, run.rows_per_s, run.commits)
    for name in (table, config.table(table).quarantine_name):  # the next cells' data need the disk, not these files
        shutil.rmtree(urlparse(catalog.load_table(config.identifier(name)).location()).path, ignore_errors=True)
    return run


def measure(spark, config, sizes: Sizes, landed: dict[int, list[list[str]]]) -> list[Run]:
    """Every cell's variants over `landed` (per writer count, each writer's files), after one untimed warm-up cell."""
    from benchmarks.ingest_and_commits.master_baseline import synthetic_entries
    from lakeops.catalog import load_catalog
    from lakeops.spark.ingest_events import ensure_tables

    cells = sizes.cells()
    master = table_name(VARIANTS[2], cells[0], 0)  # its schema shapes the seed entries
    catalog = load_catalog(config.catalog)
    ensure_tables(spark, catalog, config, master)
    spec = config.table(master)
    seed = synthetic_entries(catalog.load_table(config.identifier(master)), spec.zonemap.columns,
                             spec.zonemap.bloom_columns, sizes.seed_entries)
    warm = cells[0]
    for v in VARIANTS:  # round 0: one untimed cell per variant warms up the JVM, the sessions and each code path
        run_cell(spark, config, v, warm, 0, landed[warm.writers], sizes.seconds(warm.interval), seed)
    runs = []
    for r in range(1, sizes.rounds + 1):
        for k, cell in enumerate(cells):
            shift = (r + k) % len(VARIANTS)
            for v in VARIANTS[shift:] + VARIANTS[:shift]:
                runs.append(run_cell(spark, config, v, cell, r, landed[cell.writers], sizes.seconds(cell.interval), seed))
    return runs


def run(work: Path, sizes: Sizes) -> list[Run]:
    config = bench_config(work, {table_name(v, c, r): events_table(v) for c in sizes.cells()
                                 for r in range(sizes.rounds + 1) for v in VARIANTS})
    longest = max(sizes.seconds(i) for i in sizes.intervals)
    landed = {w: land(work / "landing", w, longest, sizes.rate) for w in sizes.writers}
    log.info("landed %d seconds of %d rows/s for each writer count %s", longest, sizes.rate, sizes.writers)
    spark = local_spark(config, "lakeops benchmark write impact")
    try:
        return measure(spark, config, sizes, landed)
    finally:
        spark.stop()


def summarize(runs: list[Run]) -> list[Summary]:
    out = []
    for cell in dict.fromkeys(r.cell for r in runs):
        mine = [r for r in runs if r.cell == cell]
        medians = {v: statistics.median(r.rows_per_s for r in mine if r.variant == v) for v in VARIANTS}
        for v in VARIANTS:
            rs = [r for r in mine if r.variant == v]
            commits = sum(r.commits for r in rs)
            writer_s = sum(r.seconds * cell.writers for r in rs)
            own = sum(r.zonemap_s + r.lock_wait_s + r.lock_held_s for r in rs)
            out.append(Summary(cell.interval, cell.writers, v, len(rs), medians[v],
                               (medians[v] / medians[VARIANTS[0]] - 1) * 100,
                               statistics.median(r.commits / r.seconds for r in rs), sum(r.zonemap_s for r in rs) / commits,
                               sum(r.lock_wait_s for r in rs) / commits, sum(r.lock_held_s for r in rs) / commits,
                               min(r.rows_per_s for r in rs), max(r.rows_per_s for r in rs), own / writer_s * 100))
    return out


def render(summaries: list[Summary], sizes: Sizes, seconds: float, load: tuple[tuple[float, ...], tuple[float, ...]]
           ) -> str:
    rows = [[f"{s.interval} s", str(s.writers), s.variant, f"{s.rows_per_s:,.0f} ({s.low:,.0f} to {s.high:,.0f})",
             "baseline" if s.variant == VARIANTS[0] else f"{s.impact_pct:+.1f} %", f"{s.commits_per_s:.2f}",
             f"{s.zonemap_per_commit_s:.3f} s" if s.variant == VARIANTS[1] else "-",
             f"{s.lock_held_per_commit_s:.3f} s / {s.lock_wait_per_commit_s:.3f} s" if s.variant == VARIANTS[2] else "-",
             "-" if s.variant == VARIANTS[0] else f"{s.overhead_pct:.1f} %"]
            for s in summaries]
    table = markdown_table(["commit interval", "writers", "variant", "rows/s, median (rounds' range)", "vs no zonemap",
                            "commits/s", "micro zonemap / commit", "master lock held / waited per commit",
                            "its own work, % of writer time"], rows)
    return (f"# Write impact of zonemaps by commit interval\n\n{sizes.rate:,} rows per second of data in files of one "
            f"second per writer; each cell ingests max({sizes.min_seconds}, 2 x interval) seconds of data per variant "
            f"into a fresh table; {sizes.rounds} timed round(s), medians; the master starts with "
            f"{sizes.seed_entries:,} entries. Writers are threads sharing one local Spark (local[2]). Run of "
            f"{seconds / 60:.0f} min, load average {load[0][0]:.1f} at the start, {load[1][0]:.1f} at the end; nproc "
            f"{os.cpu_count()}.\n\n{table}\n")


def plot(summaries: list[Summary], name: str) -> Path:
    """Left: each variant's own work in % of writer time (its clocks). Right: rows/s against no zonemap, the bars
    spanning the slowest to the fastest round: where they cross zero, the rates cannot tell the variants apart."""
    fig, (own, rates) = pyplot().subplots(1, 2, figsize=(11, 4))
    intervals = sorted({s.interval for s in summaries})
    for writers in sorted({s.writers for s in summaries}):
        base = {s.interval: s.rows_per_s for s in summaries if s.writers == writers and s.variant == VARIANTS[0]}
        for v, style in zip(VARIANTS[1:], ("-o", "--s"), strict=True):
            mine = sorted((s for s in summaries if s.writers == writers and s.variant == v), key=lambda s: s.interval)
            label = f"{v}, {writers} writer(s)"
            own.plot([s.interval for s in mine], [s.overhead_pct for s in mine], style, label=label)
            xs = [s.interval * (1.04 if writers > 1 else 0.96) for s in mine]
            ys = [s.impact_pct for s in mine]
            low = [y - (s.low / base[s.interval] - 1) * 100 for y, s in zip(ys, mine, strict=True)]
            high = [(s.high / base[s.interval] - 1) * 100 - y for y, s in zip(ys, mine, strict=True)]
            rates.errorbar(xs, ys, yerr=[low, high], fmt=style, capsize=3, label=label)
    own.axhline(2, color="tab:red", linestyle=":", linewidth=1, label="2 % (goal for micro zonemaps)")
    rates.axhline(0, color="grey", linewidth=0.8)
    for ax, title, ylabel in ((own, "Own work on the writers' path", "% of writer time"),
                              (rates, "Rows/s against no zonemap (median, rounds' range)", "%")):
        ax.set_xscale("log")
        ax.minorticks_off()
        ax.set_xticks(intervals, [f"{i} s" for i in intervals])
        ax.set_xlabel("commit interval (seconds of data per commit)")
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=10)
    own.legend(fontsize=7)
    return save_figure(fig, name)


def runs_from_json(data: dict) -> list[Run]:
    """The runs a results file holds (its "runs"), to summarize and render them again."""
    return [Run(r["variant"], Cell(**r["cell"]), r["round"], r["rows"], r["commits"], r["seconds"], r["zonemap_s"],
                r["lock_wait_s"], r["lock_held_s"]) for r in data["runs"]]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m benchmarks {NAME}", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes: checks that it runs, in a few minutes")
    parser.add_argument("--work-dir", default=str(PROJECT_ROOT / "build" / "bench-write-impact"),
                        help="scratch folder for the benchmark's catalog, warehouse and landing zone (emptied first)")
    parser.add_argument("--from-json", help="render the report and plot again from a results file's runs, run nothing")
    parser.add_argument("--intervals", help="only these commit intervals, e.g. 1,2 (results write_impact_<intervals>s)")
    args = parser.parse_args(argv)
    intervals = tuple(int(i) for i in args.intervals.split(",")) if args.intervals else None
    name = output_name(NAME + (f"_{'_'.join(map(str, intervals))}s" if intervals else ""), args.quick)
    if args.from_json:
        data = json.loads(Path(args.from_json).read_text())
        runs, sizes, seconds, load = (runs_from_json(data), Sizes(**{k: tuple(v) if isinstance(v, list) else v
                                                                      for k, v in data["sizes"].items()}),
                                      data["seconds"], (tuple(data["load"][0]), tuple(data["load"][1])))
    else:
        configure_logging(logging.INFO)
        for noisy in ("lakeops", "benchmarks.ingest_and_commits.master_baseline"):
            logging.getLogger(noisy).setLevel(logging.ERROR)
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the one-pass writer runs pyiceberg in Spark's workers
        work = Path(args.work_dir)
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        sizes = QUICK if args.quick else FULL
        if intervals:
            sizes = replace(sizes, intervals=intervals)
        began, load_before = time.perf_counter(), os.getloadavg()
        runs = run(work, sizes)
        seconds, load = time.perf_counter() - began, (load_before, os.getloadavg())
        shutil.rmtree(work, ignore_errors=True)
    summaries = summarize(runs)
    text = render(summaries, sizes, seconds, load)
    paths = write_results(name, text, {"sizes": asdict(sizes), "seconds": seconds, "load": load,
                                       "summaries": [asdict(s) for s in summaries],
                                       "runs": [{**asdict(r), "rows_per_s": r.rows_per_s} for r in runs]})
    paths.append(plot(summaries, name))
    print(text)
    print("written: " + ", ".join(str(p.relative_to(PROJECT_ROOT)) for p in paths))
    return 0
