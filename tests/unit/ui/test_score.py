"""The health score on literal figures: a clean table, a fragmented one, a delete-heavy one, a stale one and
a small one; Amoro's proportions; the zonemap's pruning share."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from lakeops.health.score import WEIGHTS, ScoreInputs, score, small_table_factor
from lakeops.health.zonemap_figures import pruning_share

MIB = 1024 * 1024
NOW = 1_800_000_000_000
MINUTE = 60_000

CLEAN = ScoreInputs(
    data_files=100, data_bytes=100 * 128 * MIB, data_records=100_000_000, avg_file_size_bytes=128 * MIB,
    small_file_threshold_bytes=96 * MIB, target_file_size_bytes=128 * MIB, equality_delete_records=0,
    position_delete_records=0, read_amp_files=1.0, freshness_sla_minutes=30, last_data_commit_ms=NOW - 5 * MINUTE)


def lost(result, name):
    return round(result.part(name).lost, 2)


def test_weights_add_up_to_100_and_keep_amoros_proportions():
    assert sum(WEIGHTS.values()) == 100
    assert WEIGHTS["small_files"] == WEIGHTS["equality_deletes"] == 2 * WEIGHTS["position_deletes"]  # 40:40:20


def test_clean_table_scores_100_and_has_no_worst_part():
    result = score(CLEAN, NOW)
    assert result.score == 100 and result.worst is None
    assert result.small_table_factor == 1.0
    assert [p.name for p in result.parts] == list(WEIGHTS)
    assert not result.part("zonemap_coverage").applies and result.part("zonemap_coverage").figure == "no zonemap columns"


def test_fragmented_table_loses_the_small_file_points():
    fragmented = replace(CLEAN, data_files=2000, data_bytes=2000 * MIB, avg_file_size_bytes=1 * MIB)
    result = score(fragmented, NOW)
    assert lost(result, "small_files") == 23.75  # 24 × (1 − 1/96)
    assert result.score == 77 and result.worst.name == "small_files"
    assert result.part("small_files").figure == "average data file 1.0 MiB against 96.0 MiB"
    # Amoro's score on the same figures: ceil(100 − 40 × (1 − 1/96)) = 61; ours loses 0.6 of what it loses
    amoro_lost = 40 * (1 - 1 / 96)
    assert math.ceil(100 - amoro_lost) == 61
    assert result.part("small_files").lost == pytest.approx(0.6 * amoro_lost)


def test_delete_heavy_table_loses_on_both_delete_kinds_and_read_amplification():
    heavy = replace(CLEAN, data_files=50, data_bytes=50 * 128 * MIB, data_records=50_000_000,
                    equality_delete_records=10_000_000, position_delete_records=5_000_000, read_amp_files=3.0)
    result = score(heavy, NOW)
    assert lost(result, "equality_deletes") == 16.0  # 24 × 0.2 / 0.3
    assert lost(result, "position_deletes") == 2.0  # 12 × 0.1 / 0.6
    assert lost(result, "read_amplification") == 10.0  # 3.0 files per data file: past twice the 1.5 threshold
    assert result.score == 72 and result.worst.name == "equality_deletes"
    at_threshold = score(replace(CLEAN, read_amp_files=1.5), NOW)
    assert lost(at_threshold, "read_amplification") == 5.0 and at_threshold.score == 95


def test_stale_table_loses_freshness_points_growing_to_twice_the_sla():
    stale = replace(CLEAN, last_data_commit_ms=NOW - 45 * MINUTE)
    assert lost(score(stale, NOW), "freshness") == 10.0 and score(stale, NOW).score == 90
    assert score(stale, NOW + 45 * MINUTE).score == 80  # the same figures an hour and a half after the commit
    assert score(replace(CLEAN, last_data_commit_ms=None), NOW).score == 80  # rows never changed
    assert score(replace(CLEAN, last_data_commit_ms=NOW - 29 * MINUTE), NOW).score == 100
    no_sla = score(replace(stale, freshness_sla_minutes=None), NOW)
    assert no_sla.score == 100 and not no_sla.part("freshness").applies
    assert score(stale, NOW).part("freshness").figure == "rows changed 45 min ago (SLA 30 min)"


def test_small_table_is_softened_but_staleness_is_not():
    small = replace(CLEAN, data_files=3, data_bytes=3 * MIB, data_records=3000, avg_file_size_bytes=1 * MIB,
                    equality_delete_records=1500, read_amp_files=2.0)
    factor = small_table_factor(3, 3 * MIB, 128 * MIB, 12)
    assert factor == pytest.approx(3 / 12 * 3 / 128)
    result = score(small, NOW)
    assert result.part("small_files").penalty == pytest.approx(1 - 1 / 96)
    assert result.part("equality_deletes").penalty == 1.0
    assert result.score == 100  # under one point lost in all
    assert score(replace(small, data_files=1), NOW).small_table_factor == 0.0
    stale_small = score(replace(small, last_data_commit_ms=NOW - 60 * MINUTE), NOW)
    assert lost(stale_small, "freshness") == 20.0 and stale_small.worst.name == "freshness"


def test_zonemap_parts_apply_with_zonemap_columns():
    indexed = replace(CLEAN, zonemap_coverage=0.5, zonemap_pruning=0.2, zonemap_column="created_at")
    result = score(indexed, NOW)
    assert lost(result, "zonemap_coverage") == 2.5 and lost(result, "zonemap_pruning") == 4.0
    assert result.score == 94
    assert result.part("zonemap_pruning").figure == "a point lookup on created_at skips 20% of indexed files"


def test_inputs_round_trip_through_plain_values():
    data = replace(CLEAN, zonemap_coverage=1.0, zonemap_pruning=0.9).as_dict()
    assert ScoreInputs.from_dict({**data, "a_figure_from_a_newer_version": 1}) == ScoreInputs.from_dict(data)
    assert score(ScoreInputs.from_dict(data), NOW).as_dict()["parts"][0] == {
        "name": "small_files", "label": "small files", "weight": 24, "penalty": 0.0, "lost": 0.0,
        "figure": "average data file 128.0 MiB against 96.0 MiB", "applies": True}


def test_pruning_share_of_disjoint_overlapping_and_unindexed_ranges():
    assert pruning_share([(0, 9), (10, 19), (20, 29), (30, 39)]) == 0.75  # each lookup reads one file of four
    assert pruning_share([(0, 100)] * 4) == 0.0
    assert pruning_share([(0, 9), (10, 19), (None, None)]) == pytest.approx(1 / 3)  # the unknown file is always read
    assert pruning_share([]) == 0.0 and pruning_share([(None, None)]) == 0.0
    assert pruning_share([("a", "c"), ("b", "d")]) == 0.25  # strings compare too; "b" falls in both files
