"""The compaction benchmark's saved runs priced as a deployment runs them. benchmarks.compaction
counts what the procedure calls cost inside one running Spark session; a deployment also pays,
per run, a Spark application's start and stop (benchmarks/results/compaction_launch.json) and
Airflow's tasks (benchmarks/results/compaction_checks.json). Runs nothing new; reads those
results and the saved runs.

* a cron's run: its call's CPU in the benchmark + the launch of a spark-submit (a fold's, or an
  empty run's when the call folded nothing: under EMPTY_CALL_CPU_S in the benchmark) + one
  Airflow task;
* the trigger, deployed as compact_tables: each fold's CPU + a fold's launch + two Airflow tasks
  (plan, compact), and one check run (three sensor tasks) every CHECK_EVERY_MINUTES, the DAG's
  schedule, in place of the benchmark's in-process checks;
* the trigger, deployed as compact_on_health: each fold's CPU + a fold's launch + a run whose plan
  task finds something (priced as the measured run whose plan finds nothing) + the compact task;
  and the watcher's work in the triggerer: a poll every POLL_EVERY_MINUTES, and an evaluation for
  every new snapshot (one per CDC interval, one per fold).

Flatness is the run's own: the benchmark's trigger checked after every 5-minute interval;
compact_tables checks every 10 minutes, compact_on_health's watcher every new snapshot with at most
one event a table every 5 minutes. A variant beats another when it is at least as flat and spends less, as in
benchmarks.compaction_pareto.

    python -m benchmarks.compaction_deployed compaction_variable_each compaction_busy_idle ...
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from typing import Any

from benchmarks.compaction_frontier import load_runs
from benchmarks.compaction_pareto import CRONS, pairs, plot, variants
from benchmarks.results import markdown_table, results_path

EMPTY_CALL_CPU_S = 0.3
"""A cron call under this (in the running session) found nothing to fold: the saved runs' empty
calls took 0.03 to 0.12 CPU s, their folds 0.38 and more."""
CHECK_EVERY_MINUTES = 10
"""compact_tables' schedule."""
POLL_EVERY_MINUTES = 1
"""compact_on_health's watcher."""
DEPLOYMENTS = {"compact_tables": "its check runs", "compact_on_health": "its watcher in the triggerer"}


def unit_costs(launch: dict[str, Any], checks: dict[str, Any]) -> dict[str, float]:
    """CPU s a deployment adds: a spark-submit's launch for a fold and for an empty run (medians of
    spark-submit less medians in process), a compact_tables check run, a one-task Airflow run, a
    compact_on_health run whose plan finds nothing, and its watcher's poll and evaluation."""
    def added(variant: str) -> float:
        runs = launch["runs"][variant]
        return (statistics.median(r["cpu_s"] for r in runs["spark_submit"])
                - statistics.median(r["cpu_s"] for r in runs["in_process"]))

    dags = checks["dags"]
    return {"launch_fold": round(statistics.mean([added("trigger"), added("cron")]), 2),
            "launch_empty": round(added("cron_idle"), 2),
            "check_run": dags["compact_tables"]["per_run_cpu_s"],
            "task_run": dags["lakeops_bench_one_task"]["per_run_cpu_s"],
            "plan_run": dags["compact_on_health"]["per_run_cpu_s"],
            "watch_poll": checks["watch"]["poll_cpu_s"],
            "watch_evaluation": checks["watch"]["evaluation_cpu_s"]}


def cron_calls(result: dict[str, Any], variant: str) -> list[float]:
    """CPU s of each of a cron's calls, from the run's cumulative figures after every interval."""
    calls, previous = [], {"calls": 0, "cpu_s": 0.0}
    for point in result["series"]:
        now = point["compaction"][variant]
        added = now["calls"] - previous["calls"]
        if added:  # more than one call in an interval share its CPU evenly
            calls += [(now["cpu_s"] - previous["cpu_s"]) / added] * added
        previous = now
    return calls


def deployed_cpu_s(result: dict[str, Any], variant: str, kind: str, costs: dict[str, float],
                   deployment: str = "compact_tables") -> float:
    if kind in CRONS:
        return sum(cpu + (costs["launch_empty"] if cpu < EMPTY_CALL_CPU_S else costs["launch_fold"]) + costs["task_run"]
                   for cpu in cron_calls(result, variant))
    folds = result["threshold_runs"].get(variant, [])
    minutes = result["series"][-1]["minute"]
    if deployment == "compact_tables":
        return (sum(run["cost"]["cpu_s"] + costs["launch_fold"] + 2 * costs["task_run"] for run in folds)
                + math.ceil(minutes / CHECK_EVERY_MINUTES) * costs["check_run"])
    if deployment == "compact_on_health":
        evaluations = len(result["series"]) + len(folds)
        return (sum(run["cost"]["cpu_s"] + costs["launch_fold"] + costs["plan_run"] + costs["task_run"] for run in folds)
                + math.ceil(minutes / POLL_EVERY_MINUTES) * costs["watch_poll"] + evaluations * costs["watch_evaluation"])
    raise ValueError(f"deployment {deployment!r} is unknown; use one of {', '.join(DEPLOYMENTS)}")


def deployed_variants(costs: dict[str, float], deployment: str = "compact_tables"):
    """compaction_pareto.variants with each variant's compute as deployed, the trigger's by `deployment`."""
    def of(result: dict[str, Any], run: str) -> list[dict[str, Any]]:
        found = variants(result, run)
        for v in found:
            v["in_process_cpu_s"] = v["cpu_s"]
            v["cpu_s"] = round(deployed_cpu_s(result, v["variant"], v["kind"], costs, deployment), 1)
        return found

    return of


def table(found: list[dict[str, Any]]) -> str:
    rows = []
    for p in found:
        crons = ", ".join(f"{c['variant']} {c['p90']:.2f}, {c['cpu_s']:.0f} ({c['in_process_cpu_s']:.1f})" for c in p["crons"])
        verdict = ("beats " + ", ".join(p["beats"]) if p["beats"] else "") + \
                  ("; beaten by " + ", ".join(p["beaten_by"]) if p["beaten_by"] else "")
        rows.append([p["run"], p["variant"], f"{p['p90']:.2f}", f"{p['cpu_s']:.0f} ({p['in_process_cpu_s']:.1f})", crons,
                     verdict.strip("; ") or "trades with every cron"])
    return markdown_table(["run", "trigger", "scan-file p90", "CPU s deployed (in session)",
                           "crons: p90, CPU s deployed (in session)", "trigger as deployed"], rows)


def report(by_deployment: dict[str, list[dict[str, Any]]], costs: dict[str, float]) -> str:
    text = ("The saved runs priced as deployed: CPU s with each run's Spark launch and Airflow tasks (in brackets, "
            "what the running session spent, as benchmarks.compaction reports it). Unit costs: a fold's launch "
            f"{costs['launch_fold']:.1f} CPU s, an empty cron run's launch {costs['launch_empty']:.1f}, a compact_tables "
            f"check run {costs['check_run']:.2f} (every {CHECK_EVERY_MINUTES} minutes), a one-task Airflow run "
            f"{costs['task_run']:.2f}, a compact_on_health run whose plan finds nothing {costs['plan_run']:.2f}, its "
            f"watcher's poll {costs['watch_poll']:.3f} (every {POLL_EVERY_MINUTES} minute) and evaluation of a new "
            f"snapshot {costs['watch_evaluation']:.3f}.\n")
    for deployment, found in by_deployment.items():
        text += f"\n**The trigger as {deployment}**, checking by {DEPLOYMENTS[deployment]}:\n\n{table(found)}\n"
    return text


def saved_costs(launch: str = "compaction_launch", checks: str = "compaction_checks") -> dict[str, float]:
    """unit_costs of the saved launch and checks results."""
    return unit_costs(json.loads(results_path(launch, ".json").read_text()),
                      json.loads(results_path(checks, ".json").read_text()))


def priced(run_names: list[str], launch: str = "compaction_launch", checks: str = "compaction_checks") -> str:
    """The report for saved runs, with the unit costs of the saved launch and checks results."""
    costs = saved_costs(launch, checks)
    runs = load_runs(run_names)
    return report({deployment: pairs(runs, deployed_variants(costs, deployment)) for deployment in DEPLOYMENTS}, costs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="results names under benchmarks/results/, measured at every interval")
    parser.add_argument("--launch", default="compaction_launch", help="results of benchmarks.compaction_launch")
    parser.add_argument("--checks", default="compaction_checks", help="results of benchmarks.compaction_checks")
    parser.add_argument("--name", default="compaction_deployed", help="output name under benchmarks/results/")
    args = parser.parse_args()
    text = priced(args.runs, args.launch, args.checks)
    print(text)
    results_path(args.name, ".md").write_text(text)
    plot(load_runs(args.runs), args.name, deployed_variants(saved_costs(args.launch, args.checks), "compact_on_health"),
         ylabel="CPU s as deployed (trigger: compact_on_health)")


if __name__ == "__main__":
    main()
