"""The fold-size benchmark's figures from literal results."""

from __future__ import annotations

import argparse

import pytest

from benchmarks.fold_size import _sizes, cpu_per_mb, report


def _result() -> dict:
    def runs(*cpu: float) -> list[dict]:
        return [{"cpu_s": c, "wall_s": c / 2, "rewritten_files": 4, "rewritten_bytes": 0} for c in cpu]

    return {"args": {"warm_up": 1, "repeats": 3},
            "tables": {"100": {"data_files": 4, "delete_files": 1, "bytes": 1_000_000},
                       "1000": {"data_files": 4, "delete_files": 1, "bytes": 11_000_000}},
            "runs": {"100": runs(0.5, 0.3, 0.4), "1000": runs(2.4, 9.0, 2.2)}}


def test_cpu_per_mb_is_the_medians_rise_over_the_added_megabytes():
    assert cpu_per_mb(_result()) == pytest.approx((2.4 - 0.4) / 10)


def test_report_gives_each_size_its_medians_and_the_rise_per_mb():
    text = report(_result())

    assert "| 100 | 1.00 | 4 + 1 | 4 | 0.40 | 0.20 | 0.50 0.30 0.40 |" in text
    assert "| 1,000 | 11.00 | 4 + 1 | 4 | 2.40 | 1.20 | 2.40 9.00 2.20 |" in text
    assert "each MB added 0.200 CPU s" in text


def test_sizes_refuse_a_partition_too_small_for_the_updates_a_repeated_size_and_text_that_is_no_number():
    assert _sizes("10000,100000") == [10000, 100000]
    with pytest.raises(argparse.ArgumentTypeError, match="at least 3 rows"):
        _sizes("2,100")
    with pytest.raises(argparse.ArgumentTypeError, match="comma-separated row counts"):
        _sizes("10k")
    with pytest.raises(argparse.ArgumentTypeError, match="each size once"):
        _sizes("100,100")
