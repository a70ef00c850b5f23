"""The table-health pages' pure parts on literals (index rows and their order, the time axis, charts, runs,
actions) and a table's page built from a real pyiceberg SqlCatalog table and its stored evaluations."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import UTC, datetime

import pyarrow as pa
from pyiceberg.expressions import EqualTo

from lakeops.catalog import load_catalog
from lakeops.config import parse_config
from lakeops.health.score import ScoreInputs, score
from lakeops.health.scores import LatestRow, ScoreRow
from lakeops.health.sweep import sweep
from lakeops.ui.actions import ACTIONS, action, available
from lakeops.ui.charts import time_chart, y_range
from lakeops.ui.health_view import ActionButton
from lakeops.ui.index_view import FAILED, NOT_CREATED, NOT_EVALUATED, OK, index_rows, sort_rows
from lakeops.ui.render_index import render_index
from lakeops.ui.render_table import render_table_page
from lakeops.ui.runs import RawRun, summarize
from lakeops.ui.table_page import build_index, build_table_page
from lakeops.ui.timeaxis import DAY_MS, HOUR_MS, ticks, window
from lakeops.watermark import watermark_key
from tests.conftest import config_data, make_test_config

MIB = 1024 * 1024
NOW = 1_800_000_000_000  # 2027-01-15 08:00 UTC
INPUTS = ScoreInputs(data_files=100, data_bytes=100 * 128 * MIB, data_records=10**8, avg_file_size_bytes=128 * MIB,
                     small_file_threshold_bytes=96 * MIB, target_file_size_bytes=128 * MIB, equality_delete_records=0,
                     position_delete_records=0, read_amp_files=1.0, freshness_sla_minutes=30,
                     last_data_commit_ms=NOW - 60_000, small_files=0, delete_files=0)


def _latest(table: str, inputs: ScoreInputs, status: str = "ok", error: str | None = None) -> LatestRow:
    result = score(inputs, NOW - 60_000)
    return LatestRow(table, status, NOW, error, ScoreRow(table, NOW - 60_000, 1, result.score, None, inputs))


def test_index_rows_worst_first_with_failed_unevaluated_and_uncreated_tables():
    fragmented = replace(INPUTS, avg_file_size_bytes=1 * MIB, small_files=100)
    latest = {"a.clean": _latest("a.clean", INPUTS), "a.fragmented": _latest("a.fragmented", fragmented),
              "a.broken": _latest("a.broken", INPUTS, "failed", "OSError: unreadable"),
              "a.stale": _latest("a.stale", replace(INPUTS, last_data_commit_ms=NOW - 3 * HOUR_MS))}
    tables = ["a.broken", "a.clean", "a.fragmented", "a.new", "a.planned", "a.stale"]
    rows = index_rows(tables, {"a.broken", "a.clean", "a.fragmented", "a.new", "a.stale"}, latest, NOW)
    ordered = sort_rows(rows)
    assert [(r.table, r.status, r.score) for r in ordered] == [
        ("a.broken", FAILED, 100), ("a.fragmented", OK, 77), ("a.stale", OK, 80), ("a.clean", OK, 100),
        ("a.new", NOT_EVALUATED, None), ("a.planned", NOT_CREATED, None)]
    stale = next(r for r in rows if r.table == "a.stale")
    assert stale.worst == "freshness" and stale.worst_lost == 20.0 and stale.freshness_missed is True
    assert [r.table for r in sort_rows(rows, "table")][:2] == ["a.broken", "a.clean"]
    assert [r.table for r in sort_rows(rows, "freshness", descending=True)][0] == "a.stale"
    html = render_index(ordered, "/lakeops/health/", "/lakeops/health/", NOW)
    assert html.index("a.broken") < html.index("a.fragmented") < html.index("a.planned")
    assert "configured, not created yet" in html and "OSError: unreadable" in html
    assert "?sort=table&amp;desc=0" in html and "score ↑" in html
    assert "could not be listed" in render_index([], "/", "/", NOW, listing_error="OSError: down")
    # the catalog could not be listed: existence unknown, no table called missing
    unknown = index_rows(["a.clean"], None, latest, NOW)
    assert unknown[0].status == OK


def test_time_axis_ticks_are_round_times_with_the_date_where_it_changes():
    start, end = NOW - 6 * HOUR_MS, NOW
    assert [label for _, label in ticks(start, end)] == ["Jan 15 02:00", "03:00", "04:00", "05:00", "06:00", "07:00",
                                                         "08:00"]
    assert all(ms % HOUR_MS == 0 for ms, _ in ticks(start, end))
    assert [label for _, label in ticks(NOW - 7 * DAY_MS, NOW)][:2] == ["Jan 09", "Jan 10"]
    assert window([NOW - 2 * HOUR_MS], NOW, 168) == (NOW - 2 * HOUR_MS - 6 * 60_000, NOW)
    assert window([NOW - 30 * DAY_MS], NOW, 24) == (NOW - 24 * HOUR_MS, NOW)


def test_chart_labels_a_flat_series_with_distinct_bounds_and_links_runs():
    assert y_range([5.0, 5.0]) == (4.0, 6.0) and y_range([0.0], floor=0.0) == (0.0, 1.0)
    from lakeops.ui.charts import Marker

    svg = time_chart("data files", [(NOW - HOUR_MS, 5.0), (NOW, 5.0)], NOW - 2 * HOUR_MS, NOW,
                     markers=(Marker(NOW - 30 * 60_000, "compaction success", "/dags/d/runs/r", "success", "r"),))
    assert ">6<" in svg and ">4<" in svg and "class='tick'" in svg
    assert "href='/dags/d/runs/r'" in svg and "data-run='r'" in svg and svg.count("<circle") == 2


def test_compaction_run_summary_has_plan_result_and_before_after():
    plan = {"table": "a.t", "actions": [{"kind": "rewrite_data_files", "partition": "d=1", "reason": "14 fragments",
                                         "input_files": 14, "input_bytes": 3 * MIB}], "deferred": []}
    result = {"table": "a.t", "status": "dry_run", "dry_run": True, "actions": [],
              "before": {"data_files": 14, "small_files": 14, "applied_delete_files": 2, "read_amp_files": 1.14}}
    run = summarize(RawRun("compact_on_health", "manual__1", "manual", "success", NOW, NOW + 1000, NOW + 9000,
                           {"tables": ["a.t"], "dry_run": True}, "success", result, plan), "/airflow")
    assert run.kind == "compaction" and run.dry_run and run.at_ms == NOW + 1000
    assert run.href == "/airflow/dags/compact_on_health/runs/manual__1"
    assert run.plan == ("rewrite_data_files on d=1 (14 files, 3.0 MiB): 14 fragments",)
    assert run.did == ("status dry_run",)
    assert ("data files", "14", "-") in run.figures and ("read amplification (files)", "1.14", "-") in run.figures
    queued = summarize(RawRun("expire_snapshots", "manual__2", "manual", "queued", NOW, None, None, {"dry_run": True}))
    assert queued.dry_run and queued.did[0].startswith("queued")


def test_actions_give_each_dag_the_tables_params():
    config = make_test_config(__import__("pathlib").Path("/tmp"), tables={"a.z": {"zonemap": {"columns": ["id"]}},
                                                                         "a.plain": {}})
    assert [a.name for a in available(config.table("a.plain"))] == ["compact", "compact_dry_run", "expire", "expire_dry_run"]
    assert len(available(config.table("a.z"))) == len(ACTIONS)
    day = datetime(2027, 1, 15, 23, 59, tzinfo=UTC)
    assert action("compact_dry_run").conf("a.t", day) == {"tables": ["a.t"], "dry_run": True}
    assert action("zonemap_rebuild").conf("a.t", day) == {"tables": ["a.t"], "day": "2027-01-15"}


def test_table_page_from_a_real_table_and_its_stored_evaluations(tmp_path):
    config = make_test_config(tmp_path, tables={"lakeops.t": {"freshness_sla_minutes": 20}})
    catalog = load_catalog(config.catalog)
    catalog.create_namespace(config.catalog.namespace)
    table = catalog.create_table("lakeops.t", schema=pa.schema([("id", pa.int64())]))
    table.append(pa.table({"id": [1, 2]}))
    sweep(config, catalog)
    table.append(pa.table({"id": [3, 4, 5]}))
    table.delete(EqualTo("id", 1))
    sweep(config, catalog)
    now = int(time.time() * 1000)
    page = build_table_page(config, catalog, "lakeops.t", 24, now)
    assert page.exists and page.score is not None and page.health["data_files"] == 2
    assert [r.inputs.data_files for r in page.history] == [1, 2]
    assert [p.data_files for p in page.snapshots] == [1, 2, 2] and page.commits[0].operation in ("delete", "overwrite")
    assert page.policy["freshness_sla_minutes"] == {"value": 20, "origin": "config entry",
                                                    "key": "tables.lakeops.t.freshness_sla_minutes"}
    assert page.sla["state"] == "met"
    page.actions = [ActionButton("compact_dry_run", "compact (dry run)", "compact_on_health", True)]
    html = render_table_page(page, "/lakeops/health/", "/lakeops/api/tables/lakeops.t/actions/", 24)
    assert "Table health: lakeops.t" in html and "id='score'" in html and "data-part='freshness'" in html
    assert "data-action='compact_dry_run'" in html and "<script>" in html
    assert html.count("class='chart'") == 5 and "freshness lag (min)" in html and "SLA 20 min" in html
    page.actions = []
    assert "cannot trigger DAG runs" in render_table_page(page, "/x/", "/y/", 24)
    rows, listing = build_index(config, catalog, now)
    assert [(r.table, r.status) for r in rows] == [("lakeops.t", OK)] and listing.existing == {"lakeops.t"}
    missing = build_table_page(config, catalog, "lakeops.nope", 24, now)
    assert not missing.exists and missing.score is None


def test_a_model_tables_page_shows_what_its_watermarks_have_not_read(tmp_path):
    """A model over lakeops.t writing lakeops.m, its watermark committed by pyiceberg as lakeops' runs commit it
    (in the data's snapshot summary); then two appends to the source the model has not read."""
    (tmp_path / "m.sql").write_text("SELECT id FROM t\n")
    config = parse_config({**config_data(tmp_path, tables={"lakeops.t": {}}),
                           "models": {"m": {"sql": "m.sql", "key": ["id"], "partition_column": "id",
                                            "sources": {"t": {"kind": "append"}}}}}, tmp_path)
    catalog = load_catalog(config.catalog)
    catalog.create_namespace(config.catalog.namespace)
    source = catalog.create_table("lakeops.t", schema=pa.schema([("id", pa.int64())]))
    source.append(pa.table({"id": [1]}))
    read = source.current_snapshot().snapshot_id
    model = catalog.create_table("lakeops.m", schema=pa.schema([("id", pa.int64())]))
    model.append(pa.table({"id": [1]}), snapshot_properties={watermark_key("t"): str(read)})
    source.append(pa.table({"id": [2]}))
    source.append(pa.table({"id": [3]}))
    oldest = source.snapshots()[1].timestamp_ms
    page = build_table_page(config, catalog, "lakeops.m", 24, NOW)
    assert [(s["source"], s["watermark_snapshot_id"], s["unread_commits"], s["oldest_unread_ms"])
            for s in page.models[0]["sources"]] == [("lakeops.t", read, 2, oldest)]
    assert page.models[0]["next_run"]["mode"] in ("incremental", "full")  # full when the appends outweigh the table
    html = render_table_page(page, "/lakeops/health/", "/lakeops/api/", 24)
    assert "<h2>ETL model m</h2>" in html and "t (lakeops.t, append): 2 commit(s) unread, the oldest from" in html
    assert build_table_page(config, catalog, "lakeops.t", 24, NOW).models == []  # a source's page: no model section
