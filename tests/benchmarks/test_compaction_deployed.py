"""Pricing saved compaction runs as deployed, from literal results."""

from __future__ import annotations

import re

import pytest

from benchmarks.compaction_deployed import cron_calls, deployed_cpu_s, priced, unit_costs
from benchmarks.results import RESULTS_DIR

COSTS = {"launch_fold": 20.0, "launch_empty": 15.0, "check_run": 4.0, "task_run": 1.0, "plan_run": 3.0,
         "watch_poll": 0.01, "watch_evaluation": 0.2}


def _series(*points: tuple[int, int, float]) -> list[dict]:
    """(minute, cumulative calls, cumulative CPU s) of the variant `tuned20`."""
    return [{"minute": m, "compaction": {"tuned20": {"calls": c, "cpu_s": cpu}}} for m, c, cpu in points]


def test_unit_costs_are_medians_of_spark_submit_less_medians_in_process():
    def runs(inside: list[float], submitted: list[float]) -> dict:
        return {"in_process": [{"cpu_s": c} for c in inside], "spark_submit": [{"cpu_s": c} for c in submitted]}

    launch = {"runs": {"trigger": runs([2.0, 2.2, 2.1], [25.0, 26.0, 24.0]), "cron": runs([1.8, 1.9, 1.7], [24.8, 25.0, 30.0]),
                       "cron_idle": runs([0.1, 0.1, 0.2], [17.0, 18.0, 16.0])}}
    checks = {"dags": {"compact_tables": {"per_run_cpu_s": 3.97}, "lakeops_bench_one_task": {"per_run_cpu_s": 1.2},
                       "compact_on_health": {"per_run_cpu_s": 2.5}},
              "watch": {"poll_cpu_s": 0.012, "evaluation_cpu_s": 0.15}}

    assert unit_costs(launch, checks) == {"launch_fold": pytest.approx((22.9 + 23.2) / 2), "launch_empty": 16.9,
                                          "check_run": 3.97, "task_run": 1.2, "plan_run": 2.5, "watch_poll": 0.012,
                                          "watch_evaluation": 0.15}


def test_cron_calls_are_the_rises_of_the_cumulative_figures():
    series = _series((5, 0, 0.0), (10, 0, 0.0), (20, 1, 1.5), (30, 1, 1.5), (40, 3, 1.7))
    assert cron_calls({"series": series}, "tuned20") == pytest.approx([1.5, 0.1, 0.1])


def test_a_cron_pays_a_launch_and_a_task_a_call_and_less_launch_for_an_empty_one():
    result = {"series": _series((20, 1, 1.5), (40, 2, 1.55))}  # a fold of 1.5, then an empty call of 0.05
    assert deployed_cpu_s(result, "tuned20", "tuned", COSTS) == pytest.approx((1.5 + 20 + 1) + (0.05 + 15 + 1))


def test_the_trigger_pays_its_folds_with_two_tasks_each_and_a_check_run_every_ten_minutes():
    result = {"series": [{"minute": 5}, {"minute": 60}],
              "threshold_runs": {"threshold": [{"cost": {"cpu_s": 2.0}}, {"cost": {"cpu_s": 1.0}}]}}
    assert deployed_cpu_s(result, "threshold", "threshold", COSTS) == pytest.approx((2 + 20 + 2) + (1 + 20 + 2) + 6 * 4.0)


def test_the_watched_trigger_pays_its_folds_with_a_plan_run_and_a_task_and_the_watchers_polls_and_evaluations():
    # two intervals, so two CDC commits, and two folds: four snapshots to evaluate; 60 polls in 60 minutes
    result = {"series": [{"minute": 5}, {"minute": 60}],
              "threshold_runs": {"threshold": [{"cost": {"cpu_s": 2.0}}, {"cost": {"cpu_s": 1.0}}]}}
    assert deployed_cpu_s(result, "threshold", "threshold", COSTS, "compact_on_health") == pytest.approx(
        (2 + 20 + 3 + 1) + (1 + 20 + 3 + 1) + 60 * 0.01 + 4 * 0.2)
    with pytest.raises(ValueError, match="deployment 'cron' is unknown; use one of compact_tables, compact_on_health"):
        deployed_cpu_s(result, "threshold", "threshold", COSTS, "cron")


def test_the_saved_pricing_is_what_the_code_makes_of_the_saved_results():
    saved = (RESULTS_DIR / "compaction_deployed.md").read_text()
    names = list(dict.fromkeys(re.findall(r"^\| (compaction\w*) \|", saved, re.MULTILINE)))
    assert len(names) >= 4, names
    assert priced(names) == saved
