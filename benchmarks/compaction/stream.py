"""No maintenance vs crons vs threshold-triggered compaction, side by side under one continuous CDC
stream, each through the project's own code paths.

One skewed `orders` CDC stream (lakeops.generator: an initial snapshot of the past days, then a
stream whose updates favour recent orders) is applied every 5 simulated minutes by the CDC ingest
job (lakeops.spark.ingest_cdc.run_cdc_ingest, the `ingest_cdc` DAG's exactly-once MERGE) to one
copy of the table per variant (workload.py):

* none:      never compacted;
* fixed:N:   a cron job: rewrite_data_files on the whole table, Iceberg's defaults, every N minutes;
* tuned:N:   the same with min-input-files 2 (every partition with two or more files), every N minutes;
* threshold: health from metadata, the sensors' threshold checks, the pure planner and the runner
             (lakeops.spark.compact_table.run_compaction), checked after every interval;
             threshold:A the same with max_file_amplification A instead of the policy's.

Every `measure_every` simulated minutes each table's health is recorded and two queries (a full
scan, the last 24 hours) are timed round-robin (median of `repeats`) against a freshly compacted
copy of the same rows. Compaction compute: wall time and CPU seconds (Spark JVM + this process)
of the compaction calls; for threshold also of the health checks that decide. Before the stream
every kind of compaction runs once on a scratch copy, unmeasured (`warm_up`).
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.common import Cost, CpuMeter, time_queries, with_catalog
from benchmarks.compaction.workload import (
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

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger("benchmarks.compaction")


@dataclass(frozen=True)
class Stream:
    """One stream shape and the maintenance variants run side by side under it."""

    variants: tuple[str, ...]
    """'none', 'fixed:<minutes>', 'tuned:<minutes>', 'threshold' or 'threshold:<max_file_amplification>'."""
    hours: float = 3.0
    """Simulated hours of stream."""
    changes_per_minute: int = 26
    """CDC changes a minute (orders about 60%: about 10,000 new orders a day, as in the history)."""
    rate_profile: tuple[float, ...] = ()
    """The rate varies: multipliers of changes_per_minute, one per block, cycling (empty: steady)."""
    rate_block_minutes: int = 60
    history_days: int = 60
    history_orders_per_day: int = 10000
    skew: float = 2.0
    """Zipf exponent on the changed order's age in days."""
    seed: int = 17
    partition_by: str = PARTITION_BY
    measure_every: int = 5
    """Simulated minutes between measurements; 5 measures every interval (a longer step that
    divides a cron's period always finds that cron just after its run)."""
    repeats: int = 3
    """Runs of each query per measurement (median)."""
    policy: dict[str, Any] | None = None
    """The tables' compaction policy (default: the shipped defaults)."""
    health: dict[str, Any] | None = None
    """The tables' health thresholds (default: the shipped defaults)."""

    def as_args(self, name: str) -> dict[str, Any]:
        """The run's settings as its results record them."""
        settings = asdict(self)
        return {**{k: v for k, v in settings.items() if k != "variants"}, "scenarios": list(self.variants), "name": name}


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


def warm_up(spark, config, meter: CpuMeter) -> dict[str, Any]:
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


def run(stream: Stream, results_name: str, spark: SparkSession | None = None) -> dict[str, Any]:
    """The stream applied to every variant's table, measured as it goes. On a session of its own,
    stopped at the end, unless given one (whose catalog settings it then adds to)."""
    from lakeops.catalog import load_catalog
    from lakeops.compaction.plan import CompactionPlan
    from lakeops.generator import generate_cdc
    from lakeops.ingest.ddl import table_ddl
    from lakeops.ingest.plan import plan_ingest
    from lakeops.spark.compact import run_action
    from lakeops.spark.ingest_cdc import run_cdc_ingest
    from lakeops.spark.session import build_session

    scenarios: list[Scenario] = [parse_scenario(s) for s in stream.variants]
    work = Path(tempfile.mkdtemp(prefix="lakeops-bench-compaction-"))
    policy = dict(stream.policy or {})
    health_limits = dict(stream.health or {})
    config = bench_config(work, scenarios, policy, health_limits, stream.partition_by)
    steps = int(stream.hours * 60) // 5
    stats = generate_cdc(config.landing_root, START, steps * 5, stream.changes_per_minute, seed=stream.seed,
                         history_days=stream.history_days, history_orders_per_day=stream.history_orders_per_day,
                         order_age_skew=stream.skew, rate_profile=stream.rate_profile,
                         rate_block_minutes=stream.rate_block_minutes)
    print(f"landed {stats.snapshot_rows['orders']:,} snapshot orders and {steps * 5} minutes of CDC "
          f"({stream.changes_per_minute} changes a minute x {stream.rate_profile or 1}: {stats.changes['orders']})", flush=True)
    if spark is None:  # a session the caller already runs (a test's) is used, and left running
        from pyspark.sql import SparkSession

        spark = SparkSession.getActiveSession()
    own_session = spark is None
    if own_session:
        spark = build_session(config, "lakeops compaction benchmark", master="local[2]")
    else:
        spark = with_catalog(spark, config)
    spark.sparkContext.setLogLevel("ERROR")
    meter = CpuMeter(spark)
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
        if minute % stream.measure_every == 0:
            fresh = fresh_copy(spark, config, scenarios[0].table)
            point: dict[str, Any] = {"minute": minute, "load": loads[-1]}
            tables = {"fresh": fresh, **{s.name: config.qualified(s.table) for s in scenarios}}
            point["query"] = {label: time_queries(meter, {name: (lambda t=t, sql=sql: spark.sql(sql.format(t=t)).collect())
                                                          for name, t in tables.items()}, stream.repeats)
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
    if own_session:
        spark.stop()
    shutil.rmtree(work, ignore_errors=True)
    return {
        "args": stream.as_args(results_name), "scenarios": [s.__dict__ for s in scenarios],
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
