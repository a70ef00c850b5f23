"""`lakeops compact` and `lakeops expire`: plans, outcomes and snapshot fates as text, on literals."""

from __future__ import annotations

from lakeops.cli.render.maintenance import render_compaction, render_expiry, snapshot_rows

ACTION = {"kind": "rewrite_data_files", "partition": "8 partitions", "strategy": "sort", "sort_order": "zorder(ts, account_id)",
          "input_files": 24, "input_delete_files": 23, "input_bytes": 91_424, "expected_files_after": 8,
          "expected_delete_files_after": 0}
PLAN = {"table": "lake.sales.orders", "budget_bytes": 10 * 2**30, "planned_bytes": 91_424, "actions": [ACTION],
        "selected": [{"partition": "account_trunc=0/ts_hour=2026-11-21-09",
                      "reason": "deletes: 30 deleted of 136 rows (22%) >= delete_ratio_threshold 1%"}],
        "deferred": [{"partition": "account_trunc=4/ts_hour=2026-11-21-09", "reason": "byte budget"}]}
FIGURES = {"data_files": 24, "small_files": 24, "applied_delete_files": 23, "dangling_delete_files": 0, "read_amp_files": 1.958}
AFTER = {"data_files": 8, "small_files": 8, "applied_delete_files": 0, "dangling_delete_files": 23, "read_amp_files": 1.0}


def _compaction(status: str, result: dict | None) -> dict:
    return {"command": "compact", "table": "lake.sales.orders", "dry_run": result is None, "run_id": "cli-20261121T103000Z",
            "plan": PLAN, "status": status, "result": result}


def test_a_dry_run_prints_the_plan_and_why():
    assert render_compaction(_compaction("dry_run", None)).splitlines() == [
        "lake.sales.orders: compaction plan (dry run: nothing was rewritten)",
        "  1 procedure call(s), 89.3 KiB planned (budget 10.0 GiB)",
        "    rewrite_data_files on 8 partitions (sort by zorder(ts, account_id)): 24 data + 23 delete files, 89.3 KiB -> "
        "8 data + 0 delete files expected",
        "      account_trunc=0/ts_hour=2026-11-21-09: deletes: 30 deleted of 136 rows (22%) >= delete_ratio_threshold 1%",
        "    deferred account_trunc=4/ts_hour=2026-11-21-09: byte budget",
    ]


def test_nothing_to_do_says_so():
    empty = {**PLAN, "actions": [], "selected": [], "deferred": [], "planned_bytes": 0}
    assert render_compaction({**_compaction("nothing_to_do", None), "plan": empty}).splitlines() == [
        "lake.sales.orders: nothing to compact: no partition is over a threshold",
        "  0 procedure call(s), 0 B planned (budget 10.0 GiB)"]


def test_a_run_compares_the_figures_before_and_after():
    result = {"status": "done", "duration_s": 57.7, "before": FIGURES, "after": AFTER, "conflicts": 1,
              "actions": [{"kind": "rewrite_data_files", "partition": "8 partitions", "status": "done", "attempts": 2,
                           "duration_s": 57.29, "error": None,
                           "outputs": {"rewritten_data_files_count": 24, "added_data_files_count": 8,
                                       "failed_data_files_count": 0}}],
              "zonemap": {"status": "published", "entries": 8}}
    assert render_compaction(_compaction("done", result)).splitlines() == [
        "lake.sales.orders: compaction done in 57.7 s (run cli-20261121T103000Z)",
        "                         before  after",
        "  data files             24      8",
        "  small files            24      8",
        "  applied delete files   23      0",
        "  dangling delete files  0       23",
        "  read amplification     1.958   1",
        "  rewrite_data_files on 8 partitions: done after 2 attempt(s) in 57.29 s (rewritten data files 24, "
        "added data files 8)",
        "  1 conflicting attempt(s) with concurrent writers, retried",
        "  zonemap: published, 8 entries",
    ]


SNAPSHOTS = [{"snapshot_id": s, "committed_at": f"2026-11-21T10:0{s}:00+00:00", "operation": op, "current": s == 4}
             for s, op in [(1, "append"), (2, "overwrite"), (3, "delete"), (4, "replace")]]
RESULT = {"dry_run": True, "snapshots_before": 4, "snapshots_expired": 0, "expire_ids": [1, 2],
          "older_than": "2026-11-21T10:29:59.000+00:00", "retain_last": 2, "predicted_files": 20, "predicted_bytes": 41_550,
          "files_removed": 0, "bytes_removed": 0, "orphans_found": 1, "orphan_bytes": 2048,
          "orphan_older_than": "2026-11-18T10:30:00.000+00:00", "orphans_removed": 0, "zonemap_files_collected": 0,
          "warnings": ["protected ref 'audit' does not exist on the table; nothing is kept for it"]}


def test_each_snapshot_gets_its_fate_and_the_reason_it_stays():
    rows = snapshot_rows(SNAPSHOTS, [1, 2], {4: "branch main", 2: "watermark of downstream table a.b"})
    assert [(r["snapshot_id"], r["fate"], r.get("reason")) for r in rows] == [
        (1, "expire", None), (2, "expire", None), (3, "keep", "retention"), (4, "keep", "branch main")]


def test_a_dry_run_lists_what_would_go():
    document = {"command": "expire", "table": "lake.sales.orders", "dry_run": True, "result": RESULT,
                "snapshots": snapshot_rows(SNAPSHOTS, [1, 2], {4: "branch main"})}
    assert render_expiry(document).splitlines() == [
        "lake.sales.orders: expiry (dry run: nothing was deleted): 4 snapshot(s), 2 would expire (older than "
        "2026-11-21T10:29:59.000+00:00, retain last 2)",
        "  snapshot  committed at               operation  fate",
        "  1         2026-11-21T10:01:00+00:00  append     expire",
        "  2         2026-11-21T10:02:00+00:00  overwrite  expire",
        "  3         2026-11-21T10:03:00+00:00  delete     keep (retention)",
        "  4         2026-11-21T10:04:00+00:00  replace    keep (branch main)",
        "  20 file(s), 40.6 KiB would go; 1 orphan file(s) older than 2026-11-18T10:30:00.000+00:00 (2.0 KiB) found, kept; "
        "0 zonemap file(s) collectable",
        "  warning: protected ref 'audit' does not exist on the table; nothing is kept for it",
    ]


def test_a_run_says_what_went():
    result = {**RESULT, "dry_run": False, "snapshots_expired": 2, "files_removed": 20, "bytes_removed": 41_550,
              "orphans_removed": 1, "warnings": []}
    document = {"command": "expire", "table": "lake.sales.orders", "dry_run": False, "result": result,
                "snapshots": snapshot_rows(SNAPSHOTS, [1, 2], {4: "branch main"})}
    lines = render_expiry(document).splitlines()
    assert lines[0].endswith("4 snapshot(s), 2 expired (older than 2026-11-21T10:29:59.000+00:00, retain last 2)")
    assert lines[-1] == ("  20 file(s), 40.6 KiB removed; 1 orphan file(s) older than 2026-11-18T10:30:00.000+00:00 "
                         "(2.0 KiB), 1 removed; 0 zonemap file(s) collected")
