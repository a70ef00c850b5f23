"""The checks benchmark's CPU accounting over a real process group, and its report from literal results."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from benchmarks.compaction_checks import deployment_cpu_s, machine_cpu_s, per_run_cpu_s, report

BURN = "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass\n"


def test_deployment_cpu_counts_the_group_and_the_children_it_waited_for():
    # A component (own process group) whose task process burns CPU and ends, then the component idles.
    component = f"import subprocess, sys, time; subprocess.run([sys.executable, '-c', {BURN!r}], check=True); time.sleep(30)"
    proc = subprocess.Popen([sys.executable, "-c", component], start_new_session=True)
    try:
        deadline = time.monotonic() + 20
        while deployment_cpu_s([proc.pid]) < 0.35 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert deployment_cpu_s([proc.pid]) >= 0.35
        assert deployment_cpu_s([proc.pid + 10_000_000]) == 0.0  # a group that does not exist
    finally:
        proc.kill()
        proc.wait()


def test_a_run_costs_what_the_deployment_spent_beyond_its_idle_rate():
    # idle 0.5 CPU s a second; 100 s of runs would have cost 50 idle: 40 more over 6 runs
    assert per_run_cpu_s(60.0, 120.0, 90.0, 100.0, 6) == pytest.approx(40 / 6)


def test_report_gives_the_idle_rate_and_each_dag_its_cost_a_run_and_its_tasks():
    def measured(per_run: float, tasks: dict) -> dict:
        return {"cpu_s": 90.0, "wall_s": 100.0, "runs": [{}] * 6, "tasks": tasks, "per_run_cpu_s": per_run,
                "per_run_machine_cpu_s": per_run + 0.5}

    result = {"args": {"intervals": 3}, "idle": {"cpu_s": 60.0, "wall_s": 120.0},
              "dags": {"compact_tables": measured(6.67, {"read_amplification": {"skipped": 6}, "plan": {"skipped": 6}}),
                       "lakeops_bench_one_task": measured(1.5, {"nothing": {"success": 6}})}}
    text = report(result)

    assert "60.0 CPU s in 120 s (0.50 CPU s a second)" in text
    assert "| compact_tables | 6 | 100 | 90.0 | 6.67 | 7.17 | read_amplification skipped 6; plan skipped 6 |" in text
    assert "| lakeops_bench_one_task | 6 | 100 | 90.0 | 1.50 | 2.00 | nothing success 6 |" in text


def test_machine_cpu_rises_by_what_a_process_burns():
    before = machine_cpu_s()
    subprocess.run([sys.executable, "-c", BURN], check=True)
    assert machine_cpu_s() - before >= 0.35


def test_report_gives_a_deferred_check_its_cost_when_measured():
    result = {"args": {"intervals": 3, "poke_interval": 10.0}, "idle": {"cpu_s": 60.0, "wall_s": 120.0}, "dags": {},
              "deferred": {"cpu_s": 12.0, "wall_s": 180.0, "checks": 18.0, "per_check_cpu_s": 0.167,
                           "per_check_machine_cpu_s": 0.18}}
    assert ("a poke interval of 10 s: 12.0 CPU s in 180 s, about 18 checks, **0.167 CPU s a check** beyond the idle rate "
            "(0.180 by the whole machine's count)") in report(result)


def test_report_says_a_deferred_check_too_small_to_resolve_rather_than_a_negative_cost():
    result = {"args": {"intervals": 3, "poke_interval": 10.0}, "idle": {"cpu_s": 12.0, "wall_s": 120.0}, "dags": {},
              "deferred": {"cpu_s": 15.9, "wall_s": 180.0, "checks": 18.0, "per_check_cpu_s": -0.122,
                           "per_check_machine_cpu_s": -0.074}}
    text = report(result)
    assert "too little to resolve" in text
    assert "-0.122" not in text


def test_report_gives_the_watchers_poll_and_evaluation():
    result = {"args": {"intervals": 3}, "idle": {"cpu_s": 60.0, "wall_s": 120.0}, "dags": {},
              "watch": {"repeats": 20, "poll_cpu_s": 0.0123, "warm_evaluation_cpu_s": 0.05, "evaluation_cpu_s": 0.2}}
    assert ("(median of 20): **0.012 CPU s a poll** that finds the snapshot unchanged (one a minute), "
            "**0.200 CPU s an evaluation** with every manifest read again (0.050 with all of them cached") in report(result)


@pytest.mark.spark
def test_the_watcher_is_timed_on_a_healthy_table_and_refuses_one_over_threshold(spark, tmp_path):
    import yaml

    from benchmarks.compaction_checks import measure_watch
    from lakeops.config import parse_config
    from lakeops.ingest.ddl import create_table_sql
    from tests.conftest import config_data, register_catalog

    data = config_data(tmp_path, {"orders": {"schema": "orders", "source": "cdc/orders", "partition_by": ["day(created_at)"]}})
    path = tmp_path / "lakeops.yaml"
    path.write_text(yaml.safe_dump(data))
    config = parse_config(data, tmp_path)
    register_catalog(spark, config)
    spark.sql(create_table_sql(config, config.table("orders")))
    name = config.qualified("orders")
    spark.sql(f"""INSERT INTO {name} SELECT id, id % 7, 'created', CAST(id AS DECIMAL(12, 2)), 'USD',
        CAST('2026-11-20 10:00:00' AS TIMESTAMP), current_timestamp() FROM range(0, 100)""")

    timed = measure_watch(path, repeats=3)
    assert timed["repeats"] == 3
    assert 0 <= timed["poll_cpu_s"] and 0 <= timed["warm_evaluation_cpu_s"] and 0 <= timed["evaluation_cpu_s"]

    spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('write.merge.mode'='merge-on-read', 'write.update.mode'='merge-on-read')")
    spark.sql(f"MERGE INTO {name} t USING (SELECT id FROM range(0, 60)) s ON t.order_id = s.id "
              "WHEN MATCHED THEN UPDATE SET status = 'paid'")  # 60% of the day's rows: the planner rewrites it
    with pytest.raises(RuntimeError, match="reports orders over threshold after the fold"):
        measure_watch(path, repeats=1)
