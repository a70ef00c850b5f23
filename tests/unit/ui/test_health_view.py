"""The table-health page's figures from a real pyiceberg SqlCatalog table, and its HTML."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pyarrow as pa
from pyiceberg.expressions import EqualTo

from lakeops.catalog import load_catalog
from lakeops.ui.health_view import read_amp_files, table_health_view
from lakeops.ui.render import render_table_page, svg_plot
from tests.conftest import make_test_config


def _table(tmp_path):
    config = make_test_config(tmp_path)
    catalog = load_catalog(config.catalog)
    catalog.create_namespace(config.catalog.namespace)
    table = catalog.create_table(config.identifier("t"), schema=pa.schema([("id", pa.int64())]))
    table.append(pa.table({"id": [1, 2]}))
    table.append(pa.table({"id": [3, 4, 5]}))
    table.delete(EqualTo("id", 1))
    return catalog.load_table(config.identifier("t"))


def test_view_has_history_maintenance_and_sla(tmp_path):
    table = _table(tmp_path)
    last = datetime.fromtimestamp(table.current_snapshot().timestamp_ms / 1000, tz=UTC)
    view = table_health_view(table, "t", 20, last + timedelta(minutes=25),
                             [{"dag_id": "ingest_events", "run_id": "r1", "deadline": "2026-11-21 10:15:00 UTC"}])
    assert [p.data_files for p in view.history] == [1, 2, 2]
    assert [p.records for p in view.history] == [2, 5, 4]
    assert view.current.read_amp_files == 1.0 and view.current.zonemap_coverage == 0.0  # no zonemap written
    assert view.health["data_files"] == 2 and view.health["delete_files"] == 0  # lakeops.health's reading
    assert view.health["small_files"] == 2 and view.health["read_amp_bytes"] == 1.0
    [run] = view.maintenance
    assert run.operation in ("delete", "overwrite") and (run.data_files_before, run.data_files_after) == (2, 2)
    assert view.sla == {"freshness_sla_minutes": 20, "state": "missed", "last_commit_age_seconds": 1500.0,
                        "late_seconds": 300.0}
    html = render_table_page(view, "/lakeops/health/")
    assert "Table health: t" in html and "freshness SLA missed" in html and "5 min 0 s late" in html
    assert "ingest_events" in html and html.count("class='plot'") == 4
    assert "small files" in html and "read amplification (bytes)" in html


def test_missing_table_and_read_amplification():
    view = table_health_view(None, "users", 20, datetime(2026, 11, 21, tzinfo=UTC))
    assert not view.exists and view.current is None and view.sla["state"] == "missed"
    assert "does not exist in the catalog yet" in render_table_page(view, "/x/")
    assert read_amp_files(10, 5) == 1.5 and read_amp_files(0, 0) == 1.0


def test_svg_plot_draws_gaps_and_escapes_titles():
    svg = svg_plot([1, None, 3, 4], "<files>")
    assert svg.count("<circle") == 1 and svg.count("<polyline") == 1
    assert "&lt;files&gt;" in svg and "<files>" not in svg
    assert "no data yet" in svg_plot([None], "empty")
