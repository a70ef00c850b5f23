"""The compaction benchmark's scenarios and table config, from literal values."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.compaction_workload import PARTITION_BY, WARM_UP_TABLE, Scenario, bench_config, parse_scenario
from lakeops.exceptions import ConfigError


def test_scenarios_parse_from_their_names_and_refuse_a_period_not_in_whole_intervals() -> None:
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


def test_tables_take_the_shipped_partitioning_unless_told_otherwise(tmp_path: Path) -> None:
    scenarios = [parse_scenario("none"), parse_scenario("threshold")]
    assert bench_config(tmp_path, scenarios, {}, {}).table("orders_none").partition_by == (PARTITION_BY,)
    coarse = bench_config(tmp_path, scenarios, {}, {}, "month(created_at)")
    assert {coarse.table(s.table).partition_by for s in scenarios} == {("month(created_at)",)}
    with pytest.raises(ConfigError, match="week"):
        bench_config(tmp_path, scenarios, {}, {}, "week(created_at)")


def test_the_warm_up_copy_keeps_the_tables_policy_but_fires_on_any_extra_file(tmp_path: Path) -> None:
    config = bench_config(tmp_path, [parse_scenario("threshold")], {"max_bytes_per_run_mb": 512}, {})
    warm = config.table(WARM_UP_TABLE).compaction
    assert (warm.max_file_amplification, warm.min_fragment_files, warm.max_bytes_per_run_mb) == (1.05, 1, 512)
    assert config.table("orders_threshold").compaction.max_file_amplification == 1.5


def test_a_threshold_scenario_with_its_own_trigger_overrides_only_its_table(tmp_path: Path) -> None:
    scenarios = [parse_scenario("threshold"), parse_scenario("threshold:1.8")]
    config = bench_config(tmp_path, scenarios, {"max_bytes_per_run_mb": 512}, {})
    own = config.table("orders_threshold1_8").compaction
    assert (own.max_file_amplification, own.max_bytes_per_run_mb) == (1.8, 512)
    assert config.table("orders_threshold").compaction.max_file_amplification == 1.5
