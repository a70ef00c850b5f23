"""What every table-health page shares: the style sheet, the page frame and small formatting helpers. The pages
are self-contained (no external asset), so they render inside Airflow's UI and offline."""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape

from lakeops.health.score import duration_text

STYLE = """
body{font-family:system-ui,sans-serif;margin:16px;color:#1f2933;background:#fff}
h1{font-size:20px;margin:0 0 12px} h2{font-size:16px;margin:20px 0 8px}
.cards{display:flex;flex-wrap:wrap;gap:10px}
.card{border:1px solid #d9e2ec;border-radius:6px;padding:8px 12px;min-width:120px}
.card .v{font-size:22px;font-weight:600} .card .k{font-size:12px;color:#52606d}
.charts{display:flex;flex-wrap:wrap;gap:12px}
.chart{border:1px solid #d9e2ec;border-radius:6px;padding:6px} .chart .t{font-size:12px;color:#52606d}
.chart .frame{fill:none;stroke:#d9e2ec} .chart .grid{stroke:#eef2f7} .chart .tick,.chart .ylabel{font-size:10px;fill:#52606d}
.chart .series{fill:none;stroke:#0b5cad;stroke-width:2} .chart .point{fill:#0b5cad}
.chart .reference{stroke:#b42318;stroke-dasharray:4 3} .chart .marker{stroke:#7b61ff;fill:#7b61ff;stroke-dasharray:2 2}
.chart .marker.failed{stroke:#b42318;fill:#b42318} .chart .marker.success{stroke:#127a3a;fill:#127a3a}
table{border-collapse:collapse;font-size:13px} td,th{border:1px solid #d9e2ec;padding:4px 8px;text-align:right;vertical-align:top}
th{background:#f0f4f8} td.l,th.l{text-align:left} th a{color:inherit}
.met{color:#127a3a;font-weight:600} .missed{color:#b42318;font-weight:600} .none{color:#52606d}
.score{display:inline-block;min-width:2.2em;text-align:center;border-radius:4px;padding:1px 6px;font-weight:700;color:#fff}
.score.good{background:#127a3a} .score.fair{background:#b7791f} .score.poor{background:#b42318} .score.unknown{background:#9aa5b1}
.big{font-size:40px;padding:4px 14px}
button{margin:0 6px 6px 0;padding:5px 10px;border:1px solid #0b5cad;background:#fff;color:#0b5cad;border-radius:4px}
button:disabled{opacity:.5} ul{margin:0;padding-left:18px} details summary{cursor:pointer}
a{color:#0b5cad}
"""


def time_text(ms: int | None) -> str:
    if ms is None:
        return "-"
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def age_text(seconds: float | None) -> str:
    return "never" if seconds is None else duration_text(seconds)


def score_class(value: int | None) -> str:
    if value is None:
        return "unknown"
    return "good" if value >= 80 else ("fair" if value >= 50 else "poor")


def score_badge(value: int | None, extra: str = "", element_id: str = "") -> str:
    ident = f" id='{element_id}'" if element_id else ""
    text = "-" if value is None else str(value)
    return f"<span{ident} class='score {score_class(value)} {extra}'>{text}</span>"


def page(title: str, body: str, script: str = "") -> str:
    tail = f"<script>{script}</script>" if script else ""
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)}</title>"
            f"<style>{STYLE}</style></head><body>{body}{tail}</body></html>")
