"""The compaction frontier's figures from a saved benchmark result: literal results in, the points
the table and plot show out."""

from __future__ import annotations

from benchmarks.compaction_frontier import frontier, report, run_label

HEALTH = {"data_files": 60, "delete_files": 4, "read_amp_files": 1.1, "read_amp_bytes": 1.0}


def _point(minute: int, full: dict[str, float]) -> dict:
    query = {q: {name: {"cpu_s": v, "wall_s": v} for name, v in full.items()} for q in ("full", "recent")}
    return {"minute": minute, "query": query, "health": {name: HEALTH for name in full if name != "fresh"}}


def _result(rate_profile: list[float], policy: dict) -> dict:
    cost = {"none": 0.0, "tuned20": 9.0, "threshold": 6.5}
    return {
        "args": {"rate_profile": rate_profile}, "policy": policy,
        "scenarios": [{"name": "none", "kind": "none"}, {"name": "tuned20", "kind": "tuned"},
                      {"name": "threshold", "kind": "threshold"}],
        "series": [_point(10, {"fresh": 1.0, "none": 1.4, "tuned20": 1.2, "threshold": 1.0}),
                   _point(20, {"fresh": 2.0, "none": 3.0, "tuned20": 2.0, "threshold": 2.2}),
                   _point(30, {"fresh": 1.0, "none": 1.6, "tuned20": 1.0, "threshold": 1.3})],
        "compaction": {n: {"calls": 3, "wall_s": c, "cpu_s": c} for n, c in cost.items()},
        "evaluation": {n: {"cpu_s": 0.5 if n == "threshold" else 0.0} for n in cost},
        "ingest": {n: {"cpu_s": 10.0} for n in cost},
    }


def test_points_leave_out_the_uncompacted_table_count_the_checks_and_go_cheapest_first():
    points = frontier({"steady": _result([], {}), "varying": _result([0.25, 3.0], {"max_file_amplification": 2.0})})

    assert [(p["run"], p["variant"]) for p in points] == [
        ("steady", "threshold"), ("steady", "tuned20"), ("varying", "threshold"), ("varying", "tuned20")]
    threshold, tuned = points[0], points[1]
    assert threshold["cpu_s"] == 7.0, "the threshold variant's health checks are part of its cost"
    assert tuned["cpu_s"] == 9.0
    assert (threshold["full_median"], threshold["full_p90"]) == (1.1, 1.3)  # ratios 1.0, 1.1, 1.3
    assert (tuned["full_median"], tuned["full_p90"]) == (1.0, 1.2)  # ratios 1.2, 1.0, 1.0
    assert (points[0]["stream"], points[2]["stream"]) == ("steady", "rates x0.25/3 per 60 min, max_file_amplification 2")


def test_the_report_names_each_run_by_its_stream():
    text = report(frontier({"compaction": _result([], {})}))

    assert "| compaction (steady) | threshold | 7.0 | 1.10 (1.30) |" in text
    assert "none" not in text.split("\n\n", 1)[1]



def test_a_run_is_labelled_by_its_stream_layout_trigger_and_warm_up():
    busy_quiet = {"args": {"rate_profile": [3.0, 0.1], "rate_block_minutes": 60, "partition_by": "day(created_at)"},
                  "policy": None, "warm_up": {"ran": ["threshold: done, 1 action(s)"], "cpu_s": 20.3}}
    month = {"args": {"rate_profile": [], "partition_by": "month(created_at)"},
             "policy": {"max_file_amplification": 2.0}, "warm_up": None}

    assert run_label(busy_quiet) == "rates x3/0.1 per 60 min, warm-up"
    assert run_label(month) == "steady, by month(created_at), max_file_amplification 2"
    assert run_label({"args": {}, "policy": None}) == "steady", "runs saved before these fields existed"
