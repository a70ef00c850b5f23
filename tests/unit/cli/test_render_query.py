"""`lakeops query`'s text: the plan, the rows, and a note when the predicate is too broad for a read in the process."""

from __future__ import annotations

from lakeops.cli.render.query import render_query


def _document(method: str, **more) -> dict:
    return {"table": "lakeops.events", "where": "user_id = 7", "planning_ms": 12.5, "live_files": 10_080,
            "candidate_files": 720, "pruned_by_index": 9_360, "minmax_files": 720, "coverage": 1.0,
            "replayed_snapshots": 2, "full_listing": False, "spark_read": {"method": method, "reason": "why"}, **more}


def test_the_plan_and_the_rows():
    text = render_query(_document("arrow", read_ms=18.0, files_read=1, rows=1, shown=[{"user_id": 7}]))
    assert "planned 10,080 live file(s) in 12.5 ms (master + 2 snapshot(s) since; index covers 100.0%)" in text
    assert "pruned by the index: 9,360; candidates: 720 (min/max statistics alone keep 720)" in text
    assert "a Spark read (lakeops.read): arrow: why" in text
    assert "read 1 file(s) in 18.0 ms: 1 row(s)" in text and "{'user_id': 7}" in text
    assert "note:" not in text


def test_a_predicate_the_index_cannot_narrow_says_a_spark_read_is_faster():
    text = render_query(_document("plain"))
    assert "note: this command reads all 720 candidates in this process" in text
    assert "a Spark read (lakeops.read) is faster" in text
