"""The compaction benchmark: its variants and tables from literal values, each part's report from
literal results, the committed stream results against the current report, and one tiny stream run
side by side on a real Spark (every table ends with the same rows; each variant compacts when it
should). Timings are measured by the benchmark, never asserted here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.common import RESULTS_DIR
from benchmarks.compaction import STREAMS, call, fold_size, launch
from benchmarks.compaction.report import report
from benchmarks.compaction.stream import Stream, run
from benchmarks.compaction.workload import WARM_UP_TABLE, Scenario, bench_config, parse_scenario
from lakeops.exceptions import ConfigError

BURN = "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass\n"


def test_variants_parse_from_their_names_and_refuse_a_period_not_in_whole_intervals() -> None:
    assert parse_scenario("tuned:20") == Scenario("tuned20", "tuned", 20)
    assert parse_scenario("threshold") == Scenario("threshold", "threshold")
    assert parse_scenario("threshold:1.8") == Scenario("threshold1_8", "threshold", trigger=1.8)
    for bad in ("threshold:1", "threshold:high"):
        with pytest.raises(ValueError, match="above 1"):
            parse_scenario(bad)
    with pytest.raises(ValueError, match="multiple of 5"):
        parse_scenario("fixed:12")
    with pytest.raises(ValueError, match="unknown"):
        parse_scenario("weekly")


def test_every_stream_shape_runs_the_shipped_trigger_beside_crons_of_whole_intervals() -> None:
    for shape, stream in STREAMS.items():
        variants = [parse_scenario(v) for v in stream.variants]
        assert any(v.kind == "threshold" and v.trigger is None for v in variants), shape
        assert any(v.kind == "tuned" for v in variants), shape
    assert STREAMS["steady"].rate_profile == () and 0.0 in STREAMS["busy_idle"].rate_profile


def test_tables_take_the_shipped_partitioning_unless_told_otherwise(tmp_path: Path) -> None:
    scenarios = [parse_scenario("none"), parse_scenario("threshold")]
    table = bench_config(tmp_path, scenarios, {}, {}).table("orders_none")
    assert table.create.partition_by[0].spark_ddl() == "days(`created_at`)"
    coarse = bench_config(tmp_path, scenarios, {}, {}, "month(created_at)")
    assert {coarse.table(s.table).create.partition_by[0].spark_ddl() for s in scenarios} == {"months(`created_at`)"}
    with pytest.raises(ConfigError, match="week"):
        bench_config(tmp_path, scenarios, {}, {}, "week(created_at)")


def test_the_warm_up_copy_keeps_the_tables_policy_but_fires_on_any_extra_file(tmp_path: Path) -> None:
    config = bench_config(tmp_path, [parse_scenario("threshold")], {"max_bytes_per_run_mb": 512}, {})
    warm = config.table(WARM_UP_TABLE).compaction
    assert (warm.max_file_amplification, warm.min_fragment_files, warm.max_bytes_per_run_mb) == (1.05, 1, 512)
    assert config.table("orders_threshold").compaction.max_file_amplification == 1.5


def test_a_threshold_variant_with_its_own_trigger_overrides_only_its_table(tmp_path: Path) -> None:
    scenarios = [parse_scenario("threshold"), parse_scenario("threshold:1.8")]
    config = bench_config(tmp_path, scenarios, {"max_bytes_per_run_mb": 512}, {})
    own = config.table("orders_threshold1_8").compaction
    assert (own.max_file_amplification, own.max_bytes_per_run_mb) == (1.8, 512)
    assert config.table("orders_threshold").compaction.max_file_amplification == 1.5


@pytest.mark.parametrize("shape", list(STREAMS))
def test_each_committed_stream_result_is_what_the_report_makes_of_its_measurements(shape: str) -> None:
    result = json.loads((RESULTS_DIR / f"compaction_{shape}.json").read_text())
    assert report(result) == (RESULTS_DIR / f"compaction_{shape}.md").read_text()
    settings = STREAMS[shape].as_args(result["args"]["name"])
    assert json.loads(json.dumps(settings)) == result["args"], "the stream shape declared is the one that made the run"


def test_the_call_report_gives_each_variant_its_median_and_every_run() -> None:
    runs = [{"cpu_s": c, "wall_s": c / 2, "rewritten_files": 37, "removed_delete_files": 0} for c in (1.0, 3.0, 2.0)]
    text = call.report({"args": {"intervals": 3, "warm_up": 2, "repeats": 3}, "data_files": 84, "delete_files": 14,
                        "partitions": 14, "runs": {"one_commit": runs}})
    assert "(84 data files, 14 delete files; the planner's call covers 14 partitions)" in text
    assert "| one_commit | 37 | 0 | 2.00 | 1.00 | 1.00 3.00 2.00 |" in text


def _fold_result() -> dict:
    def runs(*cpu: float) -> list[dict]:
        return [{"cpu_s": c, "wall_s": c / 2, "rewritten_files": 4, "rewritten_bytes": 0} for c in cpu]

    return {"args": {"warm_up": 1, "repeats": 3},
            "tables": {"100": {"data_files": 4, "delete_files": 1, "bytes": 1_000_000},
                       "1000": {"data_files": 4, "delete_files": 1, "bytes": 11_000_000}},
            "runs": {"100": runs(0.5, 0.3, 0.4), "1000": runs(2.4, 9.0, 2.2)}}


def test_a_fold_costs_the_rise_of_the_medians_over_the_added_megabytes() -> None:
    assert fold_size.cpu_per_mb(_fold_result()) == pytest.approx((2.4 - 0.4) / 10)
    text = fold_size.report(_fold_result())
    assert "| 100 | 1.00 | 4 + 1 | 4 | 0.40 | 0.20 | 0.50 0.30 0.40 |" in text
    assert "| 1,000 | 11.00 | 4 + 1 | 4 | 2.40 | 1.20 | 2.40 9.00 2.20 |" in text
    assert "each MB added 0.200 CPU s" in text


def test_fold_sizes_refuse_a_partition_too_small_for_the_updates_and_a_repeated_size() -> None:
    with pytest.raises(ValueError, match="at least 3 rows"):
        fold_size.Sizes(rows=(2, 100))
    with pytest.raises(ValueError, match="each size once"):
        fold_size.Sizes(rows=(100, 100))


def test_the_launch_counts_a_grandchild_its_child_waited_for() -> None:
    # spark-submit's JVM waits for its Python driver: the driver's CPU must reach the count.
    before = launch.children_cpu_s()
    child = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {BURN!r}], check=True)"
    subprocess.run([sys.executable, "-c", child], check=True)
    assert launch.children_cpu_s() - before >= 0.35


def test_the_launch_report_gives_each_variant_both_medians_and_what_the_launch_adds() -> None:
    def runs(*cpu: float, files: int = 37) -> list[dict]:
        return [{"cpu_s": c, "wall_s": c / 2, "rewritten_files": files} for c in cpu]

    text = launch.report({"args": {"intervals": 3, "warm_up": 2, "repeats": 3}, "data_files": 84, "delete_files": 14,
                          "partitions": 14,
                          "runs": {"trigger": {"in_process": runs(1.5, 1.7, 1.6), "spark_submit": runs(20.0, 22.0, 21.0)},
                                   "cron_idle": {"in_process": runs(0.2, 0.1, 0.3, files=0),
                                                 "spark_submit": runs(18.5, 18.0, 19.0, files=0)}}})
    assert "| trigger | 37 | 1.60 | 21.00 | 19.40 | 0.80 | 10.50 | 20.0 22.0 21.0 |" in text
    assert "| cron_idle | 0 | 0.20 | 18.50 | 18.30 | 0.10 | 9.25 | 18.5 18.0 19.0 |" in text


@pytest.mark.spark
def test_a_tiny_stream_leaves_every_table_with_the_same_rows_and_compacts_each_on_its_own_terms() -> None:
    stream = Stream(("none", "tuned:10", "threshold"), hours=0.25, history_days=3, history_orders_per_day=300, repeats=1)

    result = run(stream, "compaction_tiny")

    assert result["keys_match"] and result["same_rows"]
    assert [p["minute"] for p in result["series"]] == [5, 10, 15]
    assert result["compaction"]["none"]["calls"] == 0
    assert result["compaction"]["tuned10"]["calls"] == 1, "the 10-minute cron runs once in 15 minutes"
    assert result["evaluation"]["threshold"]["calls"] == 3, "the trigger checks after every interval"
    assert len(result["threshold_runs"]["threshold"]) == result["compaction"]["threshold"]["calls"]
    assert "| tuned10 |" in report(result)
