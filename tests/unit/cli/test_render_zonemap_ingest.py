"""`lakeops zonemap` and `lakeops ingest`: outcomes as text, on literals."""

from __future__ import annotations

from lakeops.cli.render.ingest import render_ingest
from lakeops.cli.render.zonemap import render_zonemap

PATH = "file:///lake/sales/orders/_zonemaps/daily/2026-11-21/v000000000004-42.parquet"
DRIFT = {"live_files": 24, "covered": 0, "stale_entries": 0, "added": 24, "unreadable": [], "coverage": 0.0}


def _zonemap(**result) -> dict:
    base = {"level": "daily", "period": "2026-11-21", "status": "published", "path": PATH, "snapshot_id": 42, "entries": 24,
            "drift": DRIFT, "removed_micro": 0}
    return {"command": "zonemap build", "table": "lake.sales.orders", "result": {**base, **result}}


def test_a_built_index_says_what_it_covers():
    assert render_zonemap(_zonemap()).splitlines() == [
        "lake.sales.orders: daily zonemap 2026-11-21 published: 24 entries, reconciled with snapshot 42",
        f"  {PATH}",
        "  drift: 24 live file(s) in scope, 0.0% indexed before, 24 entries added from manifest metrics, 0 stale dropped"]


def test_a_consolidation_reports_drift_unreadable_files_and_removed_micro_files():
    drift = {**DRIFT, "covered": 23, "added": 1, "stale_entries": 3, "coverage": 23 / 24, "unreadable": ["m.parquet"]}
    lines = render_zonemap(_zonemap(level="hourly", period="2026-11-21T10", drift=drift, removed_micro=5)).splitlines()
    assert lines[0] == "lake.sales.orders: hourly zonemap 2026-11-21T10 published: 24 entries, reconciled with snapshot 42"
    assert lines[2:] == [
        "  drift: 24 live file(s) in scope, 95.8% indexed before, 1 entry added from manifest metrics, 3 stale dropped",
        "  1 unreadable zonemap file(s) ignored and rebuilt", "  5 micro zonemap file(s) it covers removed"]


def test_an_existing_index_or_an_empty_table_builds_nothing():
    assert render_zonemap(_zonemap(status="exists", drift=None)) == (
        "lake.sales.orders: the table has a zonemap index already (newest master 2026-11-21: 24 entries, snapshot 42); "
        "nothing built. `lakeops zonemap consolidate` keeps it current")
    assert render_zonemap(_zonemap(status="empty_table")) == (
        "lake.sales.orders: the table has no snapshot yet; no zonemap to build")


INGEST = {"command": "ingest", "table": "lake.sales.orders", "format": "events", "mode": "direct",
          "start": "2026-11-21T10:00:00+00:00", "end": "2026-11-21T10:05:00+00:00", "source": "/landing/orders",
          "quarantine_table": "lake.sales.orders_quarantine"}
BATCH = "lake.sales.orders@20261121T100000Z-20261121T100500Z"


def test_an_events_batch_says_what_it_committed_and_quarantined():
    result = {"batch_id": BATCH, "status": "committed", "files": 1, "rows": 5, "quarantined": 1, "snapshot_id": 7}
    assert render_ingest({**INGEST, "result": result}).splitlines() == [
        f"lake.sales.orders: events batch {BATCH} (direct): committed",
        "  1 file(s), 5 row(s), 1 quarantined, snapshot 7",
        "  bad lines are in lake.sales.orders_quarantine with the reason"]


def test_staged_and_cdc_batches():
    staged = {**INGEST, "mode": "staged", "writers": [{"data_files": 2}, {"data_files": 3}],
              "result": {"batch_id": BATCH, "status": "committed", "files": 4, "rows": 50, "quarantined": 0, "snapshot_id": 8}}
    assert render_ingest(staged).splitlines()[2] == "  2 writer job(s) staged 2 data file(s), 3 data file(s); committed once"
    cdc = {**INGEST, "format": "cdc", "result": {"batch_id": BATCH, "status": "committed", "files": 2, "changes": 9, "keys": 7,
                                                 "deletes": 1, "quarantined": 0, "snapshot_id": 9}}
    assert render_ingest(cdc).splitlines()[1] == "  2 file(s), 9 change(s) on 7 key(s) (1 deletes), 0 quarantined, snapshot 9"


def test_an_empty_or_repeated_interval_commits_nothing():
    empty = {**INGEST, "result": {"batch_id": BATCH, "status": "no_input"}}
    assert render_ingest(empty) == (f"lake.sales.orders: events batch {BATCH} (direct): no_input: no landed files between "
                                    "2026-11-21T10:00:00+00:00 and 2026-11-21T10:05:00+00:00 under /landing/orders")
    again = {**INGEST, "result": {"batch_id": BATCH, "status": "already_committed"}}
    assert render_ingest(again).endswith("already_committed: the interval was ingested before; nothing committed twice")
