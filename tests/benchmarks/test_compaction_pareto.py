"""The trigger-against-cron comparison on both counts: literal results in, the pairs out; and the saved comparison."""

from __future__ import annotations

import re

import pytest

from benchmarks.compaction_frontier import load_runs
from benchmarks.compaction_pareto import beats, pairs, report, variants
from benchmarks.results import RESULTS_DIR


def _health(scan: list[int]) -> list[dict]:
    return [{"data_files": s, "delete_files": 0, "read_amp_files": 1.0, "read_amp_bytes": 1.0, "scan_files": s,
             "compacted_files": 10} for s in scan]


def _result(scans: dict[str, list[int]], cpu: dict[str, float], kinds: dict[str, str]) -> dict:
    names = list(scans)
    series = []
    for i in range(len(next(iter(scans.values())))):
        query = {q: {n: {"cpu_s": 1.0, "wall_s": 1.0} for n in ["fresh", *names]} for q in ("full", "recent")}
        series.append({"minute": 5 * (i + 1), "query": query, "health": {n: _health(scans[n])[i] for n in names}})
    return {"args": {"rate_profile": [3.0, 0.1], "rate_block_minutes": 60}, "policy": None, "warm_up": None,
            "scenarios": [{"name": n, "kind": kinds[n]} for n in names], "series": series,
            "compaction": {n: {"calls": 1, "wall_s": cpu[n], "cpu_s": cpu[n]} for n in names},
            "evaluation": {n: {"cpu_s": 0.5 if kinds[n] == "threshold" else 0.0} for n in names},
            "ingest": {n: {"cpu_s": 1.0} for n in names}}


# Ten points each: the p90 is the 9th smallest ratio (index round(0.9 x 9) = 8).
RUN = _result(
    {"none": [30] * 10, "tuned15": [10] * 8 + [17, 17], "tuned20": [10] * 8 + [19, 19],
     "threshold1_8": [12] * 8 + [17, 18], "threshold": [11] * 8 + [14, 14]},
    {"none": 0.0, "tuned15": 24.8, "tuned20": 20.7, "threshold1_8": 22.0, "threshold": 30.0},
    {"none": "none", "tuned15": "tuned", "tuned20": "tuned", "threshold1_8": "threshold", "threshold": "threshold"})


def test_variants_carry_the_scan_file_p90_and_the_trigger_pays_for_its_checks():
    found = {v["variant"]: v for v in variants(RUN, "run")}
    assert "none" not in found
    assert (found["tuned15"]["p90"], found["tuned15"]["median"], found["tuned15"]["cpu_s"]) == (1.7, 1.0, 24.8)
    assert (found["threshold1_8"]["p90"], found["threshold1_8"]["cpu_s"]) == (1.7, 22.5)


def test_a_trigger_beats_a_cron_only_when_at_least_as_flat_and_cheaper():
    assert beats({"p90": 1.70, "cpu_s": 22.5}, {"p90": 1.70, "cpu_s": 24.8})
    assert not beats({"p90": 1.71, "cpu_s": 22.5}, {"p90": 1.70, "cpu_s": 24.8}), "cheaper but less flat: a trade"
    assert not beats({"p90": 1.70, "cpu_s": 24.8}, {"p90": 1.70, "cpu_s": 24.8}), "a tie beats nothing"


def test_each_trigger_is_placed_against_every_cron_of_its_run():
    found = {p["variant"]: p for p in pairs({"busy_quiet": RUN})}

    assert (found["threshold1_8"]["beats"], found["threshold1_8"]["beaten_by"], found["threshold1_8"]["trades"]) == (
        ["tuned15"], [], ["tuned20"])
    assert (found["threshold"]["beats"], found["threshold"]["beaten_by"], found["threshold"]["trades"]) == (
        [], [], ["tuned15", "tuned20"])
    text = report(list(found.values()))
    assert ("| busy_quiet (rates x3/0.1 per 60 min) | threshold1_8 | 1.70 | 22.5 | tuned15 (1.70, 24.8) | none | "
            "tuned20 (1.90, 20.7) |") in text


def test_a_run_without_scan_file_counts_is_refused_with_the_fix():
    old = _result({"tuned20": [10, 12]}, {"tuned20": 5.0}, {"tuned20": "tuned"})
    for point in old["series"]:
        del point["health"]["tuned20"]["scan_files"]
    with pytest.raises(ValueError, match="run compaction_variable recorded no scan-file counts .* "
                                         "python -m benchmarks.compaction --name compaction_variable"):
        variants(old, "compaction_variable")


def test_the_saved_comparison_is_what_the_code_makes_of_the_saved_runs():
    saved = (RESULTS_DIR / "compaction_pareto.md").read_text()
    names = list(dict.fromkeys(re.findall(r"^\| (compaction\w*) \(", saved, re.MULTILINE)))
    assert len(names) >= 4, names
    assert report(pairs(load_runs(names))) == saved
