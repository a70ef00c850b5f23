"""What the compact_tables DAG costs on a table that needs nothing, in a real Airflow deployment:
the price of a trigger's checks, against which benchmarks.compaction_launch prices a cron's runs.

A fresh embedded catalog holds the compaction benchmark's `orders` table after `--intervals` CDC
intervals and one fold (every partition one file: no sensor has anything to report). A whole
Airflow 3 (scheduler with the LocalExecutor, dag-processor, triggerer, api-server, each its own
process; tests/e2e/airflow_services.py) loads dags/compact_tables.py alone. The benchmark takes
the CPU seconds of every process of the deployment (the components, their executor workers and
the task processes they waited for: user + system, from /proc through psutil) over an idle
window of `--idle-seconds`, then over `--runs` triggered runs of compact_tables and of a one-task
DAG, and charges each run what the deployment spent beyond its idle rate; then the same for a
read-amplification sensor in deferrable mode, per check the triggerer makes while it waits; then,
with compact_on_health unpaused (its watcher running in the triggerer), for `--runs` runs of it
whose plan finds nothing. The watcher's own work, a poll that finds the snapshot unchanged and an
evaluation of a new one, is timed first in one warm process (the triggerer's share of it is below
what the idle spread resolves), median of `--watch-repeats`.

    make bench-compaction_checks
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from datetime import UTC
from pathlib import Path
from typing import Any

from benchmarks.compaction_workload import PARTITION_BY, TUNED_CRON_ACTION, land_and_ingest
from benchmarks.results import markdown_table, run_and_save

DAG_ID = "compact_tables"
ON_HEALTH_DAG_ID = "compact_on_health"
TABLE = "orders"
"""The DAG's default `table` param, so its scheduled run checks the same table as the triggered ones."""


def deployment_cpu_s(process_group_leaders: list[int]) -> float:
    """CPU seconds of every live process in the leaders' process groups, with what each has
    collected from children it waited for."""
    import psutil

    total = 0.0
    groups = set(process_group_leaders)
    for proc in psutil.process_iter(["pid"]):
        try:
            if os.getpgid(proc.pid) not in groups:
                continue
            times = proc.cpu_times()
        except (psutil.NoSuchProcess, psutil.AccessDenied, ProcessLookupError):
            continue
        total += times.user + times.system + times.children_user + times.children_system
    return total


def machine_cpu_s() -> float:
    """CPU seconds every core of the machine has spent busy (/proc/stat), whoever spent them: a
    check on what deployment_cpu_s finds, on a machine doing nothing else."""
    with open("/proc/stat") as f:
        user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in f.readline().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def prepare_table(work: Path, intervals: int) -> Path:
    """The benchmark's `orders` after `intervals` CDC intervals and a fold; returns its config file."""
    import yaml

    from lakeops.config import parse_config
    from lakeops.spark.compact import run_action
    from lakeops.spark.session import build_session

    data = {"catalog": {"name": "benchchecks", "namespace": "lakeops", "data_dir": str(work / "data")},
            "tables": {TABLE: {"schema": "orders", "source": "cdc/orders", "partition_by": [PARTITION_BY]}}}
    config_path = work / "lakeops.yaml"
    config_path.write_text(yaml.safe_dump(data))
    config = parse_config(data, work)
    spark = build_session(config, "lakeops compaction checks benchmark", master="local[2]")
    spark.sparkContext.setLogLevel("ERROR")
    land_and_ingest(spark, config, TABLE, intervals)
    outcome = run_action(spark, config.catalog.name, config.qualified(TABLE), TUNED_CRON_ACTION)
    if outcome.status != "done":
        raise RuntimeError(f"the fold before the checks ended {outcome.status}: {outcome.error}")
    spark.stop()
    return config_path


ONE_TASK_DAG_ID = "lakeops_bench_one_task"
ONE_TASK_DAG = f'''"""One task that does nothing: what any run of a one-task DAG pays in Airflow (a cron's
compaction run, without its Spark job)."""
import pendulum
from airflow.sdk import DAG, task

with DAG(dag_id="{ONE_TASK_DAG_ID}", schedule=None, start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
         catchup=False, max_active_runs=1):

    @task
    def nothing() -> None:
        return None

    nothing()
'''


DEFERRED_DAG_ID = "lakeops_bench_deferred_check"
DEFERRED_DAG = f'''"""One read-amplification sensor in deferrable mode: after its first check it waits in the
triggerer, which checks the table's metadata again every poke_interval."""
import pendulum
from airflow.sdk import DAG

from lakeops_airflow.sensors import ReadAmplificationSensor

with DAG(dag_id="{DEFERRED_DAG_ID}", schedule=None, start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
         catchup=False, max_active_runs=1):
    ReadAmplificationSensor(task_id="read_amplification", table="{TABLE}", deferrable=True,
                            poke_interval=float("{{POKE_INTERVAL}}"), timeout=6 * 3600, soft_fail=True)
'''


def measure_watch(config_path: Path, repeats: int) -> dict[str, Any]:
    """CPU s of the watcher's work in one warm process, as the triggerer's thread runs it: a poll
    that finds the table's snapshot unchanged, and a poll that evaluates its health (forced by
    forgetting the last evaluation) and records it in the history, with the manifests cached and
    with the cache cleared. A new snapshot's evaluation reads only its new manifests: between the two."""
    import statistics

    from lakeops.health.manifests import MANIFESTS
    from lakeops.health.watch import HealthWatch

    watch = HealthWatch([TABLE], config_path=str(config_path))
    if watch.poll():
        raise RuntimeError(f"the watcher reports {TABLE} over threshold after the fold; the checks need a healthy table")

    def cpu_s(poll) -> float:
        start = time.process_time()
        poll()
        return time.process_time() - start

    def evaluation() -> None:
        watch.states.clear()
        watch.poll()

    def cold_evaluation() -> None:
        MANIFESTS.clear()
        evaluation()

    unchanged = [cpu_s(watch.poll) for _ in range(repeats)]
    evaluated = [cpu_s(evaluation) for _ in range(repeats)]
    cold = [cpu_s(cold_evaluation) for _ in range(repeats)]
    if watch.evaluations != 2 * repeats + 1:
        raise RuntimeError(f"{watch.evaluations} evaluations in {3 * repeats + 1} polls; expected {2 * repeats + 1}")
    result = {"repeats": repeats, "poll_cpu_s": round(statistics.median(unchanged), 4),
              "warm_evaluation_cpu_s": round(statistics.median(evaluated), 4),
              "evaluation_cpu_s": round(statistics.median(cold), 4)}
    print(f"watcher: {result['poll_cpu_s']} CPU s a poll of an unchanged snapshot, an evaluation "
          f"{result['warm_evaluation_cpu_s']} with the manifests cached and {result['evaluation_cpu_s']} without", flush=True)
    return result


def run(args: argparse.Namespace) -> dict[str, Any]:
    from tests.e2e.airflow_services import PROJECT_ROOT, start_airflow

    work = Path(tempfile.mkdtemp(prefix="lakeops-bench-compaction-checks-"))
    config_path = prepare_table(work, args.intervals)
    watch = measure_watch(config_path, args.watch_repeats)
    dags = work / "dags"
    dags.mkdir()
    for dag_id in (DAG_ID, ON_HEALTH_DAG_ID):
        (dags / f"{dag_id}.py").symlink_to(PROJECT_ROOT / "dags" / f"{dag_id}.py")
    (dags / f"{ONE_TASK_DAG_ID}.py").write_text(ONE_TASK_DAG)
    (dags / f"{DEFERRED_DAG_ID}.py").write_text(DEFERRED_DAG.replace("{POKE_INTERVAL}", str(args.poke_interval)))
    services = start_airflow(work / "airflow", dags, {
        "LAKEOPS_CONFIG": str(config_path), "LAKEOPS_DATA_DIR": str(work / "data"),
        "AIRFLOW_CONN_LAKEOPS_SPARK": json.dumps({"conn_type": "spark", "host": "local[2]"})})
    try:
        for dag_id in (DAG_ID, ONE_TASK_DAG_ID, DEFERRED_DAG_ID, ON_HEALTH_DAG_ID):
            services.wait_for(lambda dag_id=dag_id: _dag_loaded(services, dag_id), 180, f"the dag-processor to load {dag_id}")
        for dag_id in (DAG_ID, ONE_TASK_DAG_ID, DEFERRED_DAG_ID):
            services.api("PATCH", f"/api/v2/dags/{dag_id}", {"is_paused": False})
        # Unpausing starts compact_tables' latest scheduled run: let it end before measuring.
        services.wait_for(lambda: _runs_ended(services, DAG_ID, since=""), 300, f"the first scheduled run of {DAG_ID}", 2.0)
        leaders = [proc.pid for proc in services.processes.values()]
        time.sleep(args.settle_seconds)

        cpu, machine, wall = deployment_cpu_s(leaders), machine_cpu_s(), time.monotonic()
        time.sleep(args.idle_seconds)
        idle = {"cpu_s": round(deployment_cpu_s(leaders) - cpu, 2), "machine_cpu_s": round(machine_cpu_s() - machine, 2),
                "wall_s": round(time.monotonic() - wall, 1)}
        print(f"idle: {idle['cpu_s']} CPU s ({idle['machine_cpu_s']} on the machine) in {idle['wall_s']} s", flush=True)
        measured = {dag_id: _measure_runs(services, leaders, dag_id, args.runs, idle) for dag_id in (DAG_ID, ONE_TASK_DAG_ID)}
        deferred = _measure_deferred(services, leaders, idle, args.deferred_seconds, args.poke_interval)
        # Unpaused last, so the watcher's polls count in no other figure.
        services.api("PATCH", f"/api/v2/dags/{ON_HEALTH_DAG_ID}", {"is_paused": False})
        measured[ON_HEALTH_DAG_ID] = _measure_runs(services, leaders, ON_HEALTH_DAG_ID, args.runs, idle)
    finally:
        services.stop()
        shutil.rmtree(work, ignore_errors=True)
    return {"args": vars(args), "idle": idle, "dags": measured, "deferred": deferred, "watch": watch}


def _measure_deferred(services, leaders: list[int], idle: dict[str, float], seconds: float,
                      poke_interval: float) -> dict[str, Any]:
    """One run of the deferrable sensor's DAG: once its task waits in the triggerer, the CPU the
    deployment spends beyond its idle rate over `seconds`, per check the triggerer makes."""
    services.api("POST", f"/api/v2/dags/{DEFERRED_DAG_ID}/dagRuns", {"logical_date": None, "dag_run_id": "bench-deferred"})
    path = f"/api/v2/dags/{DEFERRED_DAG_ID}/dagRuns/bench-deferred/taskInstances/read_amplification"
    services.wait_for(lambda: services.api("GET", path)["state"] == "deferred", 180, "the sensor to defer", 1.0)
    time.sleep(poke_interval)  # the triggerer has picked the trigger up
    cpu, machine, wall = deployment_cpu_s(leaders), machine_cpu_s(), time.monotonic()
    time.sleep(seconds)
    busy = {"cpu_s": round(deployment_cpu_s(leaders) - cpu, 2), "machine_cpu_s": round(machine_cpu_s() - machine, 2),
            "wall_s": round(time.monotonic() - wall, 1)}
    state = services.api("GET", path)["state"]
    if state != "deferred":
        raise RuntimeError(f"the deferred sensor left the triggerer ({state}) while it was measured; is the table healthy?")
    checks = busy["wall_s"] / poke_interval
    per_check = per_run_cpu_s(idle["cpu_s"], idle["wall_s"], busy["cpu_s"], busy["wall_s"], 1) / checks
    per_check_machine = per_run_cpu_s(idle["machine_cpu_s"], idle["wall_s"], busy["machine_cpu_s"], busy["wall_s"], 1) / checks
    print(f"deferred: {busy['cpu_s']} CPU s in {busy['wall_s']} s, about {checks:.0f} checks: {per_check:.3f} CPU s a check",
          flush=True)
    return {**busy, "checks": round(checks, 1), "per_check_cpu_s": round(per_check, 3),
            "per_check_machine_cpu_s": round(per_check_machine, 3)}


def _measure_runs(services, leaders: list[int], dag_id: str, runs: int, idle: dict[str, float]) -> dict[str, Any]:
    """Trigger `runs` runs of dag_id (they run one after another) and charge each what the
    deployment spent beyond its idle rate; a scheduled run that starts meanwhile counts too."""
    token = services.token()
    since = _utc_now()
    cpu, machine, wall = deployment_cpu_s(leaders), machine_cpu_s(), time.monotonic()
    for index in range(runs):
        services.api("POST", f"/api/v2/dags/{dag_id}/dagRuns",
                     {"logical_date": None, "dag_run_id": f"bench-{index}", "conf": {}}, token)
    ended = services.wait_for(lambda: _runs_ended(services, dag_id, since), 60 * runs + 120, f"{runs} runs of {dag_id}", 1.0)
    busy = {"cpu_s": round(deployment_cpu_s(leaders) - cpu, 2), "machine_cpu_s": round(machine_cpu_s() - machine, 2),
            "wall_s": round(time.monotonic() - wall, 1)}
    per_run = per_run_cpu_s(idle["cpu_s"], idle["wall_s"], busy["cpu_s"], busy["wall_s"], len(ended))
    per_run_machine = per_run_cpu_s(idle["machine_cpu_s"], idle["wall_s"], busy["machine_cpu_s"], busy["wall_s"], len(ended))
    print(f"{dag_id}: {len(ended)} runs, {busy['cpu_s']} CPU s in {busy['wall_s']} s: {per_run:.2f} CPU s a run "
          f"({per_run_machine:.2f} by the machine's count)", flush=True)
    return {**busy, "runs": ended, "tasks": _task_states(services, dag_id, [r["dag_run_id"] for r in ended]),
            "per_run_cpu_s": round(per_run, 2), "per_run_machine_cpu_s": round(per_run_machine, 2)}


def _utc_now() -> str:
    from datetime import datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")  # as the REST API writes times


def per_run_cpu_s(idle_cpu: float, idle_wall: float, busy_cpu: float, busy_wall: float, runs: int) -> float:
    """What each run cost beyond what the deployment spends idle over the same time."""
    return (busy_cpu - idle_cpu / idle_wall * busy_wall) / runs


def _dag_loaded(services, dag_id: str) -> bool:
    try:
        services.api("GET", f"/api/v2/dags/{dag_id}")
        return True
    except Exception:  # noqa: BLE001 - 404 until the dag-processor has serialized it
        return False


def _runs_ended(services, dag_id: str, since: str) -> list[dict[str, Any]] | None:
    """The runs of dag_id queued since `since` (ISO time; "" for all), once every one has ended."""
    runs = [r for r in services.api("GET", f"/api/v2/dags/{dag_id}/dagRuns?limit=100")["dag_runs"]
            if (r.get("queued_at") or "") >= since]
    ended = [r for r in runs if r["state"] in ("success", "failed")]
    return ended if runs and len(ended) == len(runs) else None


def _task_states(services, dag_id: str, run_ids: list[str]) -> dict[str, dict[str, int]]:
    """How many runs ended each task in each state."""
    counts: dict[str, dict[str, int]] = {}
    for run_id in run_ids:
        for ti in services.api("GET", f"/api/v2/dags/{dag_id}/dagRuns/{run_id}/taskInstances")["task_instances"]:
            by_state = counts.setdefault(ti["task_id"], {})
            by_state[str(ti["state"])] = by_state.get(str(ti["state"]), 0) + 1
    return counts


def report(result: dict[str, Any]) -> str:
    idle = result["idle"]
    lines = [f"DAGs on a table that needs nothing (the compaction benchmark's `orders` after "
             f"{result['args']['intervals']} CDC intervals and a fold), in a whole Airflow 3 with the LocalExecutor on "
             f"this machine: compact_tables (its three sensors check the table's metadata and skip), a DAG of one task "
             f"that does nothing (what a cron's run pays in Airflow before its Spark job) and compact_on_health (its plan "
             f"finds nothing, so no compact task is mapped; measured last, with its watcher running). Idle, the deployment used "
             f"{idle['cpu_s']:.1f} CPU s in {idle['wall_s']:.0f} s ({idle['cpu_s'] / idle['wall_s']:.2f} CPU s a second); "
             f"each run is charged what the deployment spent beyond that rate (the benchmark's own polls of the REST "
             f"API while runs go on, one a second, included).", ""]
    rows = []
    for dag_id, measured in result["dags"].items():
        tasks = "; ".join(f"{task} " + ", ".join(f"{state} {n}" for state, n in sorted(states.items()))
                          for task, states in measured["tasks"].items())
        rows.append([dag_id, len(measured["runs"]), f"{measured['wall_s']:.0f}", f"{measured['cpu_s']:.1f}",
                     f"{measured['per_run_cpu_s']:.2f}", f"{measured['per_run_machine_cpu_s']:.2f}", tasks])
    lines.append(markdown_table(["DAG", "runs", "wall s", "CPU s", "CPU s a run beyond idle",
                                 "the same by the whole machine's count", "tasks"], rows))
    deferred = result.get("deferred")
    if deferred:
        cost = (f"**{deferred['per_check_cpu_s']:.3f} CPU s a check** beyond the idle rate "
                f"({deferred['per_check_machine_cpu_s']:.3f} by the whole machine's count)"
                if deferred["per_check_cpu_s"] > 0 else
                "less than the idle rate predicts for that time: a check costs too little to resolve against the "
                "deployment's idle spread this way")
        lines += ["", f"A read-amplification sensor in deferrable mode, waiting in the triggerer with a poke interval of "
                      f"{result['args']['poke_interval']:g} s: {deferred['cpu_s']:.1f} CPU s in {deferred['wall_s']:.0f} s, "
                      f"about {deferred['checks']:.0f} checks, {cost}."]
    watch = result.get("watch")
    if watch:
        lines += ["", f"compact_on_health's watcher, timed in one warm process (median of {watch['repeats']}): "
                      f"**{watch['poll_cpu_s']:.3f} CPU s a poll** that finds the snapshot unchanged (one a minute), "
                      f"**{watch['evaluation_cpu_s']:.3f} CPU s an evaluation** with every manifest read again "
                      f"({watch['warm_evaluation_cpu_s']:.3f} with all of them cached; a new snapshot reads only its new "
                      f"manifests): the three checks from one health computation, recorded in the history."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--intervals", type=int, default=3, help="5-minute CDC intervals before the fold")
    parser.add_argument("--runs", type=int, default=10, help="triggered runs of each DAG")
    parser.add_argument("--idle-seconds", type=float, default=120)
    parser.add_argument("--deferred-seconds", type=float, default=180, help="how long the deferred sensor is measured")
    parser.add_argument("--poke-interval", type=float, default=10, help="the deferred sensor's, in seconds")
    parser.add_argument("--watch-repeats", type=int, default=20, help="polls of each kind the watcher's figures are medians of")
    parser.add_argument("--settle-seconds", type=float, default=30)
    parser.add_argument("--name", default="compaction_checks", help="results file name under benchmarks/results/")
    run_and_save(parser, run, report)


if __name__ == "__main__":
    main()
