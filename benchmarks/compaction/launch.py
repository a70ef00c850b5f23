"""What a compaction run costs as a deployment runs it: one spark-submit of
spark_jobs/compact_table.py, the command the compact_tables DAG's `compact` task submits (and what
a cron job that compacts submits), against the same call in a session that is already running,
which is what benchmarks.compaction counts.

The compaction benchmark's `orders` table (workload.py) after `intervals` CDC intervals.
Variants, each on the same table state (set back before every run), round-robin `repeats` times:

* trigger: the planner's plan for that state (the threshold variant's fold);
* cron: the tuned cron's call (whole table, min-input-files 2) on the same state;
* cron_idle: the tuned cron's call on the state it leaves (nothing to fold): a cron's run on a
  table that has not changed since its last run.

Each runs as a spark-submit (a fresh JVM and Python driver; CPU of the whole process tree, from
the kernel's accounting of waited-for children) and in process (this benchmark's session after
`warm_up` unmeasured rounds; CPU of its JVM and of this process). The difference is what a run
pays to start and stop Spark, which the in-process stream leaves out for every variant.
"""

from __future__ import annotations

import json
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import Cost, CpuMeter, markdown_table
from benchmarks.compaction.workload import TUNED_CRON_ACTION, Scenario, bench_config_data, land_and_ingest, planned_fold

TABLE = "orders_launch"
VARIANTS = ("trigger", "cron", "cron_idle")


@dataclass(frozen=True)
class Sizes:
    intervals: int = 3
    """5-minute CDC intervals before the run."""
    changes_per_minute: int = 26
    seed: int = 17
    repeats: int = 5
    warm_up: int = 2
    """Unmeasured in-process rounds over every variant first."""
    history_days: int = 60
    history_orders_per_day: int = 10000


FULL = Sizes()
QUICK = Sizes(repeats=1, warm_up=0, history_days=20, history_orders_per_day=2000)


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def submit(command: list[str]) -> dict[str, Any]:
    """Run one spark-submit to its end; its CPU (JVM, Python driver and what they waited for) and wall time."""
    cpu, wall = children_cpu_s(), time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True)
    cost = {"cpu_s": round(children_cpu_s() - cpu, 3), "wall_s": round(time.perf_counter() - wall, 3)}
    if proc.returncode != 0:
        raise RuntimeError(f"spark-submit exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    from lakeops.spark.job import RESULT_PREFIX

    [line] = [x for x in proc.stdout.splitlines() if x.startswith(RESULT_PREFIX)]
    result = json.loads(line.removeprefix(RESULT_PREFIX))
    if result["status"] != "done":
        raise RuntimeError(f"compact_table ended {result['status']}: {line[:2000]}")
    return {**cost, "rewritten_files": sum(a.get("outputs", {}).get("rewritten_data_files_count", 0) for a in result["actions"])}


def run(args: Sizes) -> dict[str, Any]:
    import yaml

    from lakeops.catalog import load_catalog
    from lakeops.compaction.model import CompactionPlan
    from lakeops.config import parse_config
    from lakeops.runtime import spark_submit_command
    from lakeops.spark.compact_table import run_compaction
    from lakeops.spark.session import build_session

    work = Path(tempfile.mkdtemp(prefix="lakeops-bench-compaction-launch-"))
    data = bench_config_data(work, [Scenario("launch", "threshold")], {}, {})
    config_path = work / "lakeops.yaml"
    config_path.write_text(yaml.safe_dump(data))
    config = parse_config(data, work)
    spark = build_session(config, "lakeops compaction launch benchmark", master="local[2]")
    spark.sparkContext.setLogLevel("ERROR")
    meter = CpuMeter(spark)
    table, catalog_name = config.qualified(TABLE), config.catalog.name
    land_and_ingest(spark, config, TABLE, args.intervals, args.changes_per_minute, args.seed, args.history_days,
                    args.history_orders_per_day)
    loaded, health, planned = planned_fold(config, TABLE, args.intervals)
    cron = CompactionPlan(table=planned.table, actions=(TUNED_CRON_ACTION,), deferred=(), budget_bytes=planned.budget_bytes)
    dirty = loaded.current_snapshot().snapshot_id

    def reset(snapshot_id: int) -> None:
        spark.sql(f"REFRESH TABLE {table}")
        spark.sql(f"CALL {catalog_name}.system.set_current_snapshot(table => '{table}', snapshot_id => {snapshot_id})").collect()

    run_compaction(spark, config, TABLE, cron, "find-the-compacted-state")
    compacted = load_catalog(config.catalog).load_table(config.identifier(TABLE)).current_snapshot().snapshot_id
    states = {"trigger": (planned, dirty), "cron": (cron, dirty), "cron_idle": (cron, compacted)}
    print(f"{health.data_files} data files, {health.delete_files} delete files; the planner's call covers "
          f"{len(planned.selected)} partitions", flush=True)

    def in_process(name: str) -> dict[str, Any]:
        plan, snapshot_id = states[name]
        reset(snapshot_id)
        cost = Cost()
        with meter.measure(cost):
            result = run_compaction(spark, config, TABLE, plan, f"bench-{name}")
        rewritten = sum(a.get("outputs", {}).get("rewritten_data_files_count", 0) for a in result["actions"])
        return {"cpu_s": round(cost.cpu_s, 3), "wall_s": round(cost.wall_s, 3), "rewritten_files": rewritten}

    def submitted(name: str) -> dict[str, Any]:
        plan, snapshot_id = states[name]
        reset(snapshot_id)
        return submit(spark_submit_command("compact_table", [
            "--table", TABLE, "--plan", json.dumps(plan.as_dict()), "--run-id", f"bench-submit-{name}",
            "--config", str(config_path)], work))

    for _ in range(args.warm_up):
        for name in VARIANTS:
            in_process(name)
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {name: {"in_process": [], "spark_submit": []} for name in VARIANTS}
    for repeat in range(args.repeats):
        for name in VARIANTS:
            runs[name]["in_process"].append(in_process(name))
            runs[name]["spark_submit"].append(submitted(name))
            print(f"repeat {repeat + 1}/{args.repeats} {name}: in process {runs[name]['in_process'][-1]['cpu_s']} CPU s, "
                  f"spark-submit {runs[name]['spark_submit'][-1]['cpu_s']} CPU s", flush=True)
    spark.stop()
    shutil.rmtree(work, ignore_errors=True)
    return {"args": asdict(args), "data_files": health.data_files, "delete_files": health.delete_files,
            "partitions": len(planned.selected), "runs": runs}


def medians(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def report(result: dict[str, Any]) -> str:
    rows = []
    for name, by_way in result["runs"].items():
        inside, submitted = by_way["in_process"], by_way["spark_submit"]
        rows.append([name, inside[0]["rewritten_files"], f"{medians(inside, 'cpu_s'):.2f}", f"{medians(submitted, 'cpu_s'):.2f}",
                     f"{medians(submitted, 'cpu_s') - medians(inside, 'cpu_s'):.2f}",
                     f"{medians(inside, 'wall_s'):.2f}", f"{medians(submitted, 'wall_s'):.2f}",
                     " ".join(f"{r['cpu_s']:.1f}" for r in submitted)])
    args = result["args"]
    return (f"One compaction run on the compaction benchmark's `orders` table after {args['intervals']} CDC intervals "
            f"({result['data_files']} data files, {result['delete_files']} delete files; the planner's call covers "
            f"{result['partitions']} partitions), the table set back to the same state before every run: in this "
            f"benchmark's running session (after {args['warm_up']} unmeasured rounds) and as a spark-submit of "
            f"spark_jobs/compact_table.py (local[2]), round-robin, {args['repeats']} runs of each; medians.\n\n"
            + markdown_table(["variant", "files rewritten", "in process, CPU s", "spark-submit, CPU s",
                              "what the launch adds, CPU s", "in process, wall s", "spark-submit, wall s",
                              "every spark-submit, CPU s"], rows) + "\n")
