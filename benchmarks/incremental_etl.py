"""Incremental run after 1% new data vs a full recompute of the same table, side by side.

    make bench-incremental_etl     # or: python -m benchmarks.incremental_etl --days 40 --rows-per-day 250000

Writes `events` straight with Spark from a deterministic generator (benchmarks/etl_source.py; one
append per day, in the table's event_time order) and builds `user_activity_hourly` from it. Then,
per repetition: appends 1% new events (sessions of the hours after the newest one; 5% of the
sessions late, by an exponential delay of mean 2 h), runs the incremental ETL, and runs a full
recompute of the same state. Reports medians of wall time, Iceberg file bytes scanned and Spark
jobs (benchmarks/spark_meter.py), in benchmarks/results/<--name>.{md,json,png}.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import statistics
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from benchmarks.etl_source import events_frame
from benchmarks.results import markdown_table, results_path
from benchmarks.spark_meter import Cost, measure

NAME = "incremental_etl"
START = datetime(2026, 10, 1)
MODES = ("incremental", "full")


def _range_bytes(table, start_id: int, end_id: int) -> tuple[int, int]:
    """Bytes and files the appends in (start_id, end_id] added: what a snapshot-range read opens.
    Iceberg's Spark scan reports no file sizes for such reads, so the benchmark adds them."""
    total = files = 0
    snapshot = table.snapshot_by_id(end_id)
    while snapshot is not None and snapshot.snapshot_id != start_id:
        summary = snapshot.summary
        if summary is not None and summary.operation.value == "append":
            total += int(summary.get("added-files-size", 0))
            files += int(summary.get("added-data-files", 0))
        snapshot = table.snapshot_by_id(snapshot.parent_snapshot_id) if snapshot.parent_snapshot_id else None
    return total, files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--days", type=int, default=40)
    parser.add_argument("--rows-per-day", type=int, default=250_000)
    parser.add_argument("--users", type=int, default=50_000)
    parser.add_argument("--new-share", type=float, default=0.01, help="new events per repetition, as a share of the table")
    parser.add_argument("--late-share", type=float, default=0.05, help="share of the new sessions that arrive late")
    parser.add_argument("--mean-lateness-hours", type=float, default=2.0)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--name", default=NAME, help="results file name under benchmarks/results/")
    args = parser.parse_args()

    import yaml

    from lakeops.catalog import load_catalog
    from lakeops.config import parse_config
    from lakeops.etl.inputs import plan_from_catalog
    from lakeops.ingest.ddl import table_ddl
    from lakeops.spark.etl import run_etl
    from lakeops.spark.session import build_session

    load_before = os.getloadavg()
    base = Path(tempfile.mkdtemp(prefix="lakeops-bench-etl-"))
    shipped = yaml.safe_load((Path(__file__).resolve().parents[1] / "include" / "lakeops.yaml").read_text())["tables"]
    config = parse_config({"catalog": {"name": "bench", "namespace": "lakeops", "data_dir": str(base / "data")},
                           "tables": shipped}, base)
    spark = build_session(config, "lakeops bench incremental etl", master="local[2]")
    spark.sparkContext.setLogLevel("ERROR")
    catalog = load_catalog(config.catalog)
    spark.sql("CREATE NAMESPACE IF NOT EXISTS bench.lakeops")
    for statement in table_ddl(config, config.table("events")):
        spark.sql(statement)
    events = config.qualified("events")

    started = time.perf_counter()
    for day in range(args.days):
        events_frame(spark, day * args.rows_per_day, args.rows_per_day, START + timedelta(days=day),
                     START + timedelta(days=day + 1), args.users, seed=day).writeTo(events).append()
        print(f"day {day + 1}/{args.days} written", flush=True)
    total_rows = args.days * args.rows_per_day
    build_s = time.perf_counter() - started
    first = run_etl(spark, catalog, config, plan_from_catalog(catalog, config, "user_activity_hourly"))
    print(f"events: {total_rows:,} rows over {args.days} days in {build_s:.0f} s; downstream: {first.keys:,} rows", flush=True)

    samples: dict[str, list[Cost]] = {m: [] for m in MODES}
    reps = []
    head = START + timedelta(days=args.days)
    next_id = total_rows
    # Warm-up, not measured: one tiny incremental run, so the first measured MERGE does not pay the
    # JVM's first compilation of its code paths (the full run's were warmed by the first build).
    warm_rows = max(8, total_rows // 100_000)
    events_frame(spark, next_id, warm_rows, head, head + timedelta(minutes=1), args.users, seed=999).writeTo(events).append()
    run_etl(spark, catalog, config, plan_from_catalog(catalog, config, "user_activity_hourly"))
    head, next_id, total_rows = head + timedelta(minutes=1), next_id + warm_rows, total_rows + warm_rows
    for rep in range(args.repetitions):
        new_rows = int(total_rows * args.new_share)
        span = timedelta(hours=24 * args.days * args.new_share)
        events_frame(spark, next_id, new_rows, head, head + span, args.users, seed=1000 + rep,
                     late_share=args.late_share, mean_lateness_s=args.mean_lateness_hours * 3600).writeTo(events).append()
        head, next_id, total_rows = head + span, next_id + new_rows, total_rows + new_rows
        rep_row = {"new_events": new_rows}
        for mode in MODES:
            plan = plan_from_catalog(catalog, config, "user_activity_hourly", full=(mode == "full"))
            assert plan.mode == mode, plan
            cost, result = measure(spark, functools.partial(run_etl, spark, catalog, config, plan))
            if mode == "incremental":
                r = plan.ranges[0]
                events_table = catalog.load_table(config.identifier("events"))
                added, added_files = _range_bytes(events_table, r.start_snapshot_id, r.end_snapshot_id)
                cost = Cost(cost.seconds, cost.scanned_bytes + added, cost.scanned_files + added_files, cost.spark_jobs)
            samples[mode].append(cost)
            rep_row[mode] = {**cost.__dict__, "status": result.status, "keys": result.keys}
            print(f"rep {rep + 1}: {mode:<11} {cost.seconds:7.2f} s {cost.scanned_bytes / 1e6:9.2f} MB "
                  f"in {cost.scanned_files} files, {cost.spark_jobs} Spark jobs ({result.status}, {result.keys:,} keys)",
                  flush=True)
        reps.append(rep_row)
    load_after = os.getloadavg()
    spark.stop()
    shutil.rmtree(base, ignore_errors=True)

    figures = ("seconds", "scanned_bytes", "scanned_files", "spark_jobs")
    med = {m: {k: statistics.median(getattr(c, k) for c in samples[m]) for k in figures} for m in MODES}
    ratio = {k: med["incremental"][k] / max(med["full"][k], 1e-9) for k in ("seconds", "scanned_bytes")}
    # The same ratios per repetition (incremental and full back to back, under the same load), then their median.
    pairs = list(zip(samples["incremental"], samples["full"], strict=False))
    paired = {k: statistics.median(getattr(i, k) / max(getattr(f, k), 1e-9) for i, f in pairs)
              for k in ("seconds", "scanned_bytes")}
    rows = [[m, f"{med[m]['seconds']:.2f}", f"{med[m]['scanned_bytes'] / 1e6:.2f}", f"{med[m]['scanned_files']:.0f}",
             f"{med[m]['spark_jobs']:.0f}"] for m in MODES]
    rows.append(["incremental / full (of the medians)", f"{ratio['seconds']:.1%}", f"{ratio['scanned_bytes']:.1%}", "", ""])
    rows.append(["incremental / full (median per repetition)", f"{paired['seconds']:.1%}", f"{paired['scanned_bytes']:.1%}",
                 "", ""])
    table = markdown_table(["run", "wall time (s)", "MB scanned", "files scanned", "Spark jobs"], rows)
    setup = (f"`user_activity_hourly` from `events`: {args.days * args.rows_per_day:,} events over {args.days} day partitions "
             f"({args.users:,} users, sessions of 8 events), then per repetition {args.new_share:.0%} new events "
             f"({args.late_share:.0%} of their sessions late, mean delay {args.mean_lateness_hours:g} h); "
             f"medians of {args.repetitions} repetitions, incremental and full on the same state, local[2] Spark "
             f"on a shared 2-core machine (load average {load_before[0]:.1f} before, {load_after[0]:.1f} after).")
    text = (f"# Incremental ETL vs full recompute\n\n{setup}\n\n{table}\n\n"
            "MB scanned: data and delete file bytes the run's Iceberg scans opened (after pruning, before column "
            "projection), MERGE target scans included; for the snapshot-range read, the files the range appended.\n\n"
            f"Goal: incremental at most 5% of full. Wall time {ratio['seconds']:.1%}, bytes {ratio['scanned_bytes']:.1%} "
            f"(per repetition: {paired['seconds']:.1%}, {paired['scanned_bytes']:.1%}).\n")
    results_path(args.name, ".md").write_text(text)
    results_path(args.name, ".json").write_text(json.dumps({
        "args": vars(args), "load_average": {"before": load_before, "after": load_after}, "build_seconds": build_s,
        "downstream_rows": first.keys, "repetitions": reps, "medians": med, "ratios": ratio,
        "ratios_per_repetition_median": paired}, indent=1, default=str))
    print(text)
    _plot(med, ratio, args.name)


def _plot(med: dict, ratio: dict, name: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
    for ax, key, label, scale in ((axes[0], "seconds", "wall time (s)", 1), (axes[1], "scanned_bytes", "MB scanned", 1e6)):
        values = [med[m][key] / scale for m in MODES]
        bars = ax.bar(["incremental (1% new)", "full recompute"], values, color=["tab:green", "tab:gray"])
        ax.bar_label(bars, labels=[f"{values[0]:.1f} ({ratio[key]:.1%})", f"{values[1]:.1f}"])
        ax.set_title(label)
    fig.suptitle("user_activity_hourly: incremental vs full (medians)")
    fig.tight_layout()
    fig.savefig(results_path(name, ".png"), dpi=100)


if __name__ == "__main__":
    main()
