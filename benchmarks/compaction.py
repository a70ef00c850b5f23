"""No maintenance vs fixed-schedule compaction vs threshold-triggered compaction, side by side,
under one continuous CDC stream, each through the project's own code paths.

One skewed `orders` CDC stream (lakeops.generator: an initial snapshot of the past days, then a
stream whose updates favour recent orders) is applied every 5 simulated minutes by the CDC ingest
job (lakeops.spark.ingest_cdc.run_cdc_ingest, the `ingest_cdc` DAG's exactly-once MERGE) to one
copy of the table per scenario (see benchmarks/compaction_workload.py):

* none:      never compacted;
* fixed:N:   a cron job: rewrite_data_files on the whole table, Iceberg's defaults, every N minutes;
* tuned:N:   the same with min-input-files 2 (every partition with two or more files), every N minutes;
* threshold: health from metadata, the sensors' threshold checks, the pure planner and the runner
             (lakeops.spark.compact_table.run_compaction), checked after every interval;
             threshold:A the same with max_file_amplification A instead of the policy's.

Every `--measure-every` simulated minutes each table's health is recorded and two queries (a
full scan, the last 24 hours) are timed round-robin (median of `--repeats`) against a freshly
compacted copy of the same rows. Compaction compute: wall time and CPU seconds (Spark JVM +
this process) of the compaction calls; for threshold also of the health checks that decide.
Before the stream every kind of compaction runs once on a scratch copy, unmeasured (`warm_up`).

    make bench-compaction                        # 3 simulated hours
    python -m benchmarks.compaction --hours 2    # shorter
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.compaction_meter import Cost, Meter, time_queries
from benchmarks.compaction_report import plot, report
from benchmarks.compaction_workload import (
    BATCH,
    CRON_ACTION,
    PARTITION_BY,
    START,
    TUNED_CRON_ACTION,
    WARM_UP_TABLE,
    Scenario,
    bench_config,
    fresh_copy,
    parse_scenario,
    queries,
)
from benchmarks.results import configure_logging, save

log = logging.getLogger("benchmarks.compaction")


class Threshold:
    """The compact_tables DAG's decision and run, in process: sensors' checks -> planner -> runner."""

    def __init__(self, spark, config, table: str) -> None:
        from lakeops.catalog import load_catalog

        self.spark, self.config, self.table = spark, config, table
        self.spec = config.table(table)
        self.catalog = load_catalog(config.catalog)
        self.window: tuple[float, float] = (3600.0, 1.0)
        """(wall seconds, simulated hours) of the growth window: the last 12 intervals."""
        self.fired: list[dict[str, Any]] = []

    def check(self, minute: int) -> Any:
        """The three sensors' checks on one health evaluation; the plan when at least one fired."""
        from lakeops.health.thresholds import CHECKS, DELETE_GROWTH, breaches, default_thresholds

        # Growth is counted over the last simulated hour (12 intervals), which lasted window[0] s of wall time.
        window_h, simulated_h = self.window[0] / 3600, self.window[1]
        health = self.health(growth_window_hours=window_h)
        found = []
        for check in CHECKS:
            limits = default_thresholds(check, self.spec.health, self.spec.compaction)
            if check == DELETE_GROWTH:  # a rate per simulated hour
                limits = {"max_per_hour": limits["max_per_hour"] * simulated_h / window_h}
            found += breaches(check, health.partitions, target_bytes=health.target_file_size_bytes, **limits)
        return self.plan(health) if found else None

    def health(self, growth_window_hours: float = 1.0) -> Any:
        from lakeops.health.compute import compute_health

        return compute_health(self.catalog.load_table(self.config.identifier(self.table)), self.spec.compaction,
                              growth_window_hours=growth_window_hours)

    def plan(self, health: Any) -> Any:
        from lakeops.compaction.plan import plan_configured

        return plan_configured(health, self.spec)

    def run(self, plan, minute: int) -> dict[str, Any]:
        from lakeops.spark.compact_table import run_compaction

        result = run_compaction(self.spark, self.config, self.table, plan, f"bench-{minute}")
        self.fired.append({"minute": minute, "status": result["status"],
                           "actions": [(a["kind"], a["partition"]) for a in result["actions"]],
                           "before": result["before"], "after": result["after"]})
        return result


def warm_up(spark, config, meter: Meter) -> dict[str, Any]:
    """Every kind of compaction once on a scratch copy of the table, each after a MERGE, before the
    stream and unmeasured: the JVM compiles the rewrite path on its first calls (about 2 CPU s),
    which would otherwise count against whichever variant compacts first. Returns what ran and
    what it cost; the copy is dropped."""
    from lakeops.ingest.plan import plan_ingest
    from lakeops.spark.compact import run_action
    from lakeops.spark.ingest_cdc import run_cdc_ingest

    table, cost, ran = WARM_UP_TABLE, Cost(), []
    runner = Threshold(spark, config, table)
    with meter.measure(cost):
        for step, kind in enumerate(("threshold", "tuned", "fixed")):
            start = START + step * BATCH
            run_cdc_ingest(spark, config, table, plan_ingest(config, table, start, start + BATCH))
            if kind == "threshold":
                plan = runner.plan(runner.health())
                if plan.actions:
                    ran.append(f"threshold: {runner.run(plan, 0)['status']}, {len(plan.actions)} action(s)")
            else:
                outcome = run_action(spark, config.catalog.name, config.qualified(table),
                                     TUNED_CRON_ACTION if kind == "tuned" else CRON_ACTION)
                ran.append(f"{kind} cron: {outcome.status}")
    spark.sql(f"DROP TABLE {config.qualified(table)} PURGE")
    print(f"warm-up on a scratch copy (unmeasured): {'; '.join(ran)}, {cost.cpu_s:.1f} CPU s", flush=True)
    return {"ran": ran, **cost.as_dict()}


def _health(catalog, config, table: str) -> dict[str, Any]:
    """The table's health figures, and the files a full scan opens against the files of a compacted
    copy (lakeops.health.layout: what the threshold trigger weighs)."""
    from lakeops.compaction.serde import health_figures
    from lakeops.health.compute import compute_health
    from lakeops.health.layout import table_layout

    health = compute_health(catalog.load_table(config.identifier(table)), config.table(table).compaction)
    figures = health_figures(health)
    figures.pop("snapshot_id")
    figures["scan_files"], figures["compacted_files"] = table_layout(health.partitions, health.target_file_size_bytes)
    return figures


def run(args: argparse.Namespace) -> dict[str, Any]:
    from lakeops.catalog import load_catalog
    from lakeops.compaction.plan import CompactionPlan
    from lakeops.generator import generate_cdc
    from lakeops.ingest.ddl import table_ddl
    from lakeops.ingest.plan import plan_ingest
    from lakeops.spark.compact import run_action
    from lakeops.spark.ingest_cdc import run_cdc_ingest
    from lakeops.spark.session import build_session

    scenarios: list[Scenario] = [parse_scenario(s) for s in args.scenarios]
    work = Path(tempfile.mkdtemp(prefix="lakeops-bench-compaction-"))
    policy = json.loads(args.policy) if args.policy else {}
    health_limits = json.loads(args.health) if args.health else {}
    config = bench_config(work, scenarios, policy, health_limits, args.partition_by)
    steps = int(args.hours * 60) // 5
    stats = generate_cdc(config.landing_root, START, steps * 5, args.changes_per_minute, seed=args.seed,
                         history_days=args.history_days, history_orders_per_day=args.history_orders_per_day,
                         order_age_skew=args.skew, rate_profile=args.rate_profile,
                         rate_block_minutes=args.rate_block_minutes)
    print(f"landed {stats.snapshot_rows['orders']:,} snapshot orders and {steps * 5} minutes of CDC "
          f"({args.changes_per_minute} changes a minute x {args.rate_profile or 1}: {stats.changes['orders']})", flush=True)
    spark = build_session(config, "lakeops compaction benchmark", master="local[2]")
    spark.sparkContext.setLogLevel("ERROR")
    meter = Meter(spark)
    catalog = load_catalog(config.catalog)
    # The initial snapshot, merged by the same job into the first table and copied to the others
    # (the same DDL, one file per partition like the MERGE wrote): set-up, not measured.
    first = scenarios[0].table
    run_cdc_ingest(spark, config, first, plan_ingest(config, first, START - BATCH, START))
    for table in [*(s.table for s in scenarios[1:]), WARM_UP_TABLE]:
        for statement in table_ddl(config, config.table(table)):
            spark.sql(statement)
        spark.sql(f"INSERT INTO {config.qualified(table)} SELECT * FROM {config.qualified(first)}")
    warmed = warm_up(spark, config, meter)
    ingest = {s.name: Cost() for s in scenarios}
    compaction = {s.name: Cost() for s in scenarios}
    evaluation = {s.name: Cost() for s in scenarios}
    deciders = {s.name: Threshold(spark, config, s.table) for s in scenarios if s.kind == "threshold"}
    series: list[dict[str, Any]] = []
    loads: list[float] = []
    step_started: list[float] = []
    began = time.monotonic()
    for step in range(steps):
        start = START + step * BATCH
        minute = (step + 1) * 5
        step_started.append(time.monotonic())
        for s in scenarios[step % len(scenarios):] + scenarios[:step % len(scenarios)]:  # no table always first
            with meter.measure(ingest[s.name]):
                run_cdc_ingest(spark, config, s.table, plan_ingest(config, s.table, start, start + BATCH))
        for s in scenarios:
            if s.kind in ("fixed", "tuned") and minute % s.every == 0:
                cron = CRON_ACTION if s.kind == "fixed" else TUNED_CRON_ACTION
                with meter.measure(compaction[s.name]):
                    outcome = run_action(spark, config.catalog.name, config.qualified(s.table), cron)
                if outcome.status != "done":
                    print(f"  {s.name} at {minute}: {outcome.status} {outcome.error} {outcome.conflicts}", flush=True)
            elif s.kind == "threshold":
                decider = deciders[s.name]
                first = step_started[max(0, len(step_started) - 12)]
                decider.window = (max(time.monotonic() - first, 1.0), min(len(step_started), 12) * 5 / 60)
                with meter.measure(evaluation[s.name]):
                    plan: CompactionPlan | None = decider.check(minute)
                if plan is not None and plan.actions:
                    cost = Cost()
                    with meter.measure(cost):
                        result = decider.run(plan, minute)
                    compaction[s.name].add(cost)
                    decider.fired[-1]["cost"] = cost.as_dict()
                    print(f"  {s.name} at {minute}: {result['status']} "
                          f"{[(a['kind'], a['partition']) for a in result['actions']]} {cost.cpu_s:.2f} CPU s", flush=True)
        loads.append(os.getloadavg()[0])
        if minute % args.measure_every == 0:
            fresh = fresh_copy(spark, config, scenarios[0].table)
            point: dict[str, Any] = {"minute": minute, "load": loads[-1]}
            tables = {"fresh": fresh, **{s.name: config.qualified(s.table) for s in scenarios}}
            point["query"] = {label: time_queries(meter, {name: (lambda t=t, sql=sql: spark.sql(sql.format(t=t)).collect())
                                                          for name, t in tables.items()}, args.repeats)
                              for label, sql in queries(start + BATCH).items()}
            point["health"] = {s.name: _health(catalog, config, s.table) for s in scenarios}
            point["compaction"] = {name: c.as_dict() for name, c in compaction.items()}
            point["evaluation"] = {name: c.as_dict() for name, c in evaluation.items()}
            series.append(point)
            q = point["query"]
            print(f"minute {minute:4d} ({time.monotonic() - began:5.0f} s, load {loads[-1]:.1f}): " + "; ".join(
                f"{s.name} {point['health'][s.name]['data_files']}+{point['health'][s.name]['delete_files']} files, "
                + "/".join(f"{q[k][s.name]['cpu_s'] / q[k]['fresh']['cpu_s']:.2f}x" for k in q)
                + f" cpu, compaction {compaction[s.name].cpu_s:.0f} s" for s in scenarios), flush=True)
    keys = {s.name: sorted(r[0] for r in spark.table(config.qualified(s.table)).select("order_id").collect())
            for s in scenarios}
    expected = sorted(stats.live["orders"])
    same_rows = all(spark.sql(f"SELECT count(*) FROM (SELECT * FROM {config.qualified(scenarios[0].table)} "
                              f"EXCEPT ALL SELECT * FROM {config.qualified(s.table)})").first()[0] == 0
                    for s in scenarios[1:])
    spark.stop()
    shutil.rmtree(work, ignore_errors=True)
    return {
        "args": {k: v for k, v in vars(args).items()}, "scenarios": [s.__dict__ for s in scenarios],
        "policy": policy, "health_limits": health_limits, "warm_up": warmed, "series": series,
        "ingest": {n: c.as_dict() for n, c in ingest.items()},
        "compaction": {n: c.as_dict() for n, c in compaction.items()},
        "evaluation": {n: c.as_dict() for n, c in evaluation.items()},
        "threshold_runs": {n: d.fired for n, d in deciders.items()},
        "rows": len(expected), "keys_match": all(k == expected for k in keys.values()), "same_rows": same_rows,
        "snapshot_orders": stats.snapshot_rows["orders"], "changes": stats.changes["orders"],
        "load_average": {"min": min(loads), "median": sorted(loads)[len(loads) // 2], "max": max(loads)},
        "duration_s": round(time.monotonic() - began, 1),
    }


def _multipliers(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(m) for m in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give comma-separated multipliers, e.g. 0.25,3,1") from None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=3.0, help="simulated hours of stream (at least 2 for the README)")
    parser.add_argument("--changes-per-minute", type=int, default=26,
                        help="CDC changes a minute (orders about 60%%: about 10,000 new orders a day, as in the history)")
    parser.add_argument("--rate-profile", type=_multipliers, default=(),
                        help="vary the rate: multipliers of --changes-per-minute, one per block, cycling, e.g. 0.25,3,1")
    parser.add_argument("--rate-block-minutes", type=int, default=60, help="simulated minutes of one --rate-profile block")
    parser.add_argument("--history-days", type=int, default=60)
    parser.add_argument("--history-orders-per-day", type=int, default=10000)
    parser.add_argument("--skew", type=float, default=2.0, help="Zipf exponent on the changed order's age in days")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--partition-by", default=PARTITION_BY,
                        help="the tables' partition transform, e.g. month(created_at) for fewer, larger partitions")
    parser.add_argument("--scenarios", nargs="+",
                        default=["none", "fixed:30", "fixed:15", "tuned:10", "tuned:20", "tuned:30", "threshold"])
    parser.add_argument("--measure-every", type=int, default=5,
                        help="simulated minutes between measurements; 5 measures every interval (a longer step that "
                             "divides a cron's period always finds that cron just after its run)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each query per measurement (median)")
    parser.add_argument("--policy", help="JSON compaction policy of the tables (default: the shipped defaults)")
    parser.add_argument("--health", help="JSON health thresholds of the tables (default: the shipped defaults)")
    parser.add_argument("--name", default="compaction", help="results file name under benchmarks/results/")
    args = parser.parse_args()
    configure_logging()
    result = run(args)
    save(args.name, report(result), result)
    plot(result, args.name)


if __name__ == "__main__":
    main()
