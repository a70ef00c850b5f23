"""The compaction benchmark's report, from a saved result and from literal values."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.compaction_report import _warm_up, report

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


def test_the_warm_up_is_named_with_what_ran_and_its_cost() -> None:
    text = _warm_up({"ran": ["threshold: done, 1 action(s)", "tuned cron: done", "fixed cron: done"], "cpu_s": 6.04})
    assert "threshold: done, 1 action(s); tuned cron: done; fixed cron: done; 6.0 CPU s" in text
    assert "unmeasured" in text


def test_a_result_saved_without_a_warm_up_says_so() -> None:
    result = json.loads((RESULTS / "compaction_busy_quiet_amp20.json").read_text())
    text = report(result)
    assert "No warm-up: the first compaction of the run paid the JVM's." in text
    assert "| threshold | 80 + 82 |" in text
