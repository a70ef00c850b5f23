"""HTML for the table-health page: figures, inline SVG history plots, maintenance and SLA tables.
Self-contained (no script, no external asset), so it renders inside Airflow's UI and offline."""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape

from lakeops.alerts.message import format_duration
from lakeops.ui.health_view import HistoryPoint, TableHealthView

STYLE = """
body{font-family:system-ui,sans-serif;margin:16px;color:#1f2933;background:#fff}
h1{font-size:20px;margin:0 0 12px} h2{font-size:16px;margin:20px 0 8px}
.cards{display:flex;flex-wrap:wrap;gap:10px}
.card{border:1px solid #d9e2ec;border-radius:6px;padding:8px 12px;min-width:120px}
.card .v{font-size:22px;font-weight:600} .card .k{font-size:12px;color:#52606d}
.plots{display:flex;flex-wrap:wrap;gap:12px}
.plot{border:1px solid #d9e2ec;border-radius:6px;padding:6px}
.plot .t{font-size:12px;color:#52606d}
table{border-collapse:collapse;font-size:13px} td,th{border:1px solid #d9e2ec;padding:4px 8px;text-align:right}
th{background:#f0f4f8} td.l,th.l{text-align:left}
.met{color:#127a3a;font-weight:600} .missed{color:#b42318;font-weight:600} .none{color:#52606d}
a{color:#0b5cad}
"""


def _time(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _page(title: str, body: str) -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)}</title>"
            f"<style>{STYLE}</style></head><body>{body}</body></html>")


def svg_plot(values: list[float | None], title: str, width: int = 320, height: int = 120) -> str:
    """A line plot of one series (None values are gaps), with its min and max labelled."""
    known = [v for v in values if v is not None]
    head = f"<div class='plot' data-series='{escape(title)}'><div class='t'>{escape(title)}</div>"
    if not known:
        return head + "<svg width='320' height='40'><text x='4' y='24' font-size='12'>no data yet</text></svg></div>"
    low, high = min(known), max(known)
    span = (high - low) or 1.0
    pad, inner_w, inner_h = 28, width - 36, height - 24
    step = inner_w / max(1, len(values) - 1)
    segments: list[list[str]] = []
    current: list[str] = []
    for i, value in enumerate(values):
        if value is None:
            if current:
                segments.append(current)
            current = []
            continue
        x = pad + i * step
        y = 8 + inner_h - (value - low) / span * inner_h
        current.append(f"{x:.1f},{y:.1f}")
    if current:
        segments.append(current)
    lines = "".join(
        f"<polyline fill='none' stroke='#0b5cad' stroke-width='2' points='{' '.join(s)}'/>" if len(s) > 1
        else f"<circle cx='{s[0].split(',')[0]}' cy='{s[0].split(',')[1]}' r='3' fill='#0b5cad'/>"
        for s in segments)
    labels = (f"<text x='2' y='14' font-size='10'>{high:g}</text>"
              f"<text x='2' y='{height - 8}' font-size='10'>{low:g}</text>")
    return head + f"<svg width='{width}' height='{height}'>{labels}{lines}</svg></div>"


def _card(label: str, value: str) -> str:
    return f"<div class='card'><div class='v'>{escape(value)}</div><div class='k'>{escape(label)}</div></div>"


def _current_cards(view: TableHealthView) -> str:
    point: HistoryPoint | None = view.current
    if point is None:
        return "<p class='none'>The table has no commit yet.</p>"
    coverage = "n/a" if point.zonemap_coverage is None else f"{point.zonemap_coverage:.0%}"
    health = view.health or {}
    cards = [
        _card("data files", f"{health.get('data_files', point.data_files):,}"),
        _card("delete files", f"{health.get('delete_files', point.delete_files):,}"),
        _card("records", f"{point.records:,}"),
        _card("read amplification (files)", f"{health.get('read_amp_files', point.read_amp_files):.3g}"),
    ]
    if health:
        cards += [
            _card("read amplification (bytes)", f"{health['read_amp_bytes']:.3g}"),
            _card("small files", f"{health['small_files']:,}"),
            _card("delete files per data file", f"{health['delete_files_per_data_file']:.3g}"),
            _card("partitions", f"{health['partitions']:,}"),
        ]
    cards += [
        _card("zonemap coverage", coverage),
        _card("snapshots", f"{len(view.history):,}"),
        _card("last commit", _time(point.committed_ms)),
    ]
    return "<div class='cards' id='current'>" + "".join(cards) + "</div>"


def _sla(view: TableHealthView) -> str:
    sla = view.sla
    state = sla.get("state", "")
    css = {"met": "met", "missed": "missed"}.get(state, "none")
    label = f"freshness SLA {state}" if sla.get("freshness_sla_minutes") else "no freshness SLA configured"
    text = f"<span class='{css}' id='sla-state'>{escape(label)}</span>"
    if sla.get("freshness_sla_minutes"):
        age = sla.get("last_commit_age_seconds")
        last = format_duration(age) + " ago" if age is not None else "never"
        text += f": last commit {last}, SLA {sla['freshness_sla_minutes']} min"
        if state == "missed" and age is not None:
            text += f", {format_duration(sla.get('late_seconds', 0))} late"
    rows = "".join(
        f"<tr><td class='l'>{escape(str(d['dag_id']))}</td><td class='l'>{escape(str(d['run_id']))}</td>"
        f"<td class='l'>{escape(str(d['deadline']))}</td></tr>" for d in view.missed_deadlines)
    missed = (f"<table><tr><th class='l'>DAG</th><th class='l'>run</th><th class='l'>missed deadline</th></tr>{rows}</table>"
              if rows else "<p class='none'>No missed DAG deadline recorded for this table.</p>")
    return f"<p>{text}</p>{missed}"


def _maintenance(view: TableHealthView) -> str:
    if not view.maintenance:
        return "<p class='none'>No maintenance commit (rewrite, compaction, delete) in the table's history.</p>"
    rows = "".join(
        f"<tr><td class='l'>{_time(m.committed_ms)}</td><td class='l'>{escape(m.operation)}</td>"
        f"<td>{m.data_files_before:,} → {m.data_files_after:,}</td><td>{m.delete_files_before:,} → {m.delete_files_after:,}</td>"
        f"<td class='l'>{escape(m.detail)}</td></tr>" for m in view.maintenance)
    return ("<table id='maintenance'><tr><th class='l'>committed</th><th class='l'>operation</th><th>data files</th>"
            f"<th>delete files</th><th class='l'>detail</th></tr>{rows}</table>")


def render_table_page(view: TableHealthView, index_href: str) -> str:
    history = view.history
    plots = "".join([
        svg_plot([p.data_files for p in history], "data files"),
        svg_plot([p.delete_files for p in history], "delete files"),
        svg_plot([p.read_amp_files for p in history], "read amplification (files)"),
        svg_plot([p.zonemap_coverage * 100 if p.zonemap_coverage is not None else None for p in history],
                 "zonemap coverage (%)"),
    ])
    body = (f"<p><a href='{escape(index_href)}'>all tables</a></p><h1>Table health: {escape(view.table)}</h1>"
            + ("" if view.exists else "<p class='missed'>The table does not exist in the catalog yet.</p>")
            + "<h2>Now</h2>" + _current_cards(view)
            + "<h2>SLA</h2>" + _sla(view)
            + f"<h2>History ({len(history)} snapshots)</h2><div class='plots'>{plots}</div>"
            + "<h2>Last maintenance runs</h2>" + _maintenance(view))
    return _page(f"lakeops table health: {view.table}", body)


def render_index(rows: list[dict[str, object]], table_href: str) -> str:
    body = "".join(
        f"<tr><td class='l'><a href='{escape(table_href)}{escape(str(r['table']))}'>{escape(str(r['table']))}</a></td>"
        f"<td>{r['data_files']}</td><td>{r['delete_files']}</td><td class='l'>{escape(str(r['sla']))}</td></tr>"
        for r in rows)
    return _page("lakeops table health", "<h1>Table health</h1><table id='tables'><tr><th class='l'>table</th>"
                 f"<th>data files</th><th>delete files</th><th class='l'>freshness SLA</th></tr>{body}</table>")
