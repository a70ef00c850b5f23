"""The launch benchmark's CPU accounting (a real process tree) and its report from literal results."""

from __future__ import annotations

import subprocess
import sys

from benchmarks.compaction_launch import children_cpu_s, report

BURN = "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass\n"


def test_children_cpu_counts_a_grandchild_its_child_waited_for():
    # spark-submit's JVM waits for its Python driver: the driver's CPU must reach the count.
    before = children_cpu_s()
    child = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {BURN!r}], check=True)"
    subprocess.run([sys.executable, "-c", child], check=True)
    assert children_cpu_s() - before >= 0.35


def _result() -> dict:
    def runs(*cpu: float, files: int = 37) -> list[dict]:
        return [{"cpu_s": c, "wall_s": c / 2, "rewritten_files": files} for c in cpu]

    return {"args": {"intervals": 3, "warm_up": 2, "repeats": 3}, "data_files": 84, "delete_files": 14, "partitions": 14,
            "runs": {"trigger": {"in_process": runs(1.5, 1.7, 1.6), "spark_submit": runs(20.0, 22.0, 21.0)},
                     "cron_idle": {"in_process": runs(0.2, 0.1, 0.3, files=0), "spark_submit": runs(18.5, 18.0, 19.0, files=0)}}}


def test_report_gives_each_variant_both_medians_and_what_the_launch_adds():
    text = report(_result())

    assert "| trigger | 37 | 1.60 | 21.00 | 19.40 | 0.80 | 10.50 | 20.0 22.0 21.0 |" in text
    assert "| cron_idle | 0 | 0.20 | 18.50 | 18.30 | 0.10 | 9.25 | 18.5 18.0 19.0 |" in text
    assert "84 data files, 14 delete files" in text
