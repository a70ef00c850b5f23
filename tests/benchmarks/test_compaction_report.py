"""The compaction benchmark's report, from the saved results and from literal values."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.compaction_report import _warm_up, report

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


def _saved_runs() -> dict[str, dict]:
    runs = {p.stem: json.loads(p.read_text()) for p in sorted(RESULTS.glob("compaction*.json"))}
    return {name: run for name, run in runs.items() if "series" in run}  # compaction_call is another benchmark


def test_the_warm_up_is_named_with_what_ran_and_its_cost() -> None:
    text = _warm_up({"ran": ["threshold: done, 1 action(s)", "tuned cron: done", "fixed cron: done"], "cpu_s": 6.04})
    assert "threshold: done, 1 action(s); tuned cron: done; fixed cron: done; 6.0 CPU s" in text
    assert "unmeasured" in text


def test_a_run_without_the_warm_up_says_so() -> None:
    run = _saved_runs()["compaction_busy_quiet"]
    assert "Every kind of compaction ran once on a scratch copy first" in report(run)
    del run["warm_up"]
    assert "No warm-up: the first compaction of the run paid the JVM's." in report(run)


def test_every_saved_report_is_what_the_report_makes_of_its_figures() -> None:
    runs = _saved_runs()
    assert {"compaction", "compaction_variable", "compaction_busy_quiet"} <= set(runs)
    for name, run in runs.items():
        assert report(run) == (RESULTS / f"{name}.md").read_text(), name


def test_the_scan_files_against_a_compacted_copy_are_reported_when_the_run_recorded_them() -> None:
    run = _saved_runs()["compaction_busy_quiet"]
    assert "files a full scan opens vs a compacted copy" not in report(run)
    for i, point in enumerate(run["series"]):
        for health in point["health"].values():
            health["scan_files"], health["compacted_files"] = [(62, 62), (93, 62), (124, 62)][i % 3]
    text = report(run)
    assert "files a full scan opens vs a compacted copy: median (p90)" in text
    assert "| 1.50 (2.00) |" in text  # each variant's ratios: 1.0, 1.5 and 2.0 in turn
