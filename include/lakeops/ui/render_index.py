"""HTML of the table-health index: every maintained table with its score and worst part, sortable by each
column (links, no script), worst first by default."""

from __future__ import annotations

from html import escape
from urllib.parse import quote

from lakeops.ui.index_view import NOT_CREATED, OK, IndexRow
from lakeops.ui.page import age_text, page, score_badge, time_text

COLUMNS = (("table", "table", False), ("score", "score", False), ("worst part", "worst", True),
           ("data files", "data_files", True), ("delete files", "delete_files", True),
           ("read amplification", "read_amplification", True), ("freshness", "freshness", True),
           ("evaluated", "evaluated", True))
"""(header, sort key, descending when clicked first): by default the worst comes first."""


def _header(label: str, key: str, first_descending: bool, sort: str, descending: bool, href: str) -> str:
    active = key == sort
    desc = (not descending) if active else first_descending
    arrow = (" ↓" if descending else " ↑") if active else ""
    return (f"<th class='l' data-sort='{key}'><a href='{escape(href)}?sort={key}&amp;desc={int(desc)}'>"
            f"{escape(label)}{arrow}</a></th>")


def _freshness(row: IndexRow) -> str:
    missed = row.freshness_missed
    if missed is None:
        return "<span class='none'>-</span>"
    css = "missed" if missed else "met"
    return f"<span class='{css}'>{'missed' if missed else 'met'}</span> ({age_text(row.freshness_lag_s)} ago)"


def _row(row: IndexRow, table_href: str, now_ms: int) -> str:
    link = f"<a href='{escape(table_href)}{quote(row.table)}'>{escape(row.table)}</a>"
    if row.status == NOT_CREATED:
        return (f"<tr data-table='{escape(row.table)}' data-status='{escape(row.status)}'><td class='l'>{link}</td>"
                f"<td class='l none' colspan='7'>configured, not created yet</td></tr>")
    status = "" if row.status == OK else f"<div class='{'missed' if row.error else 'none'}'>{escape(row.status)}" + (
        f": {escape(row.error[:200])}" if row.error else "") + "</div>"
    worst = (f"{escape(row.worst)} <span class='none'>(−{row.worst_lost:g}: {escape(row.worst_figure or '')})</span>"
             if row.worst else "<span class='none'>-</span>")
    evaluated = (f"<span title='{time_text(row.evaluated_at_ms)}'>{age_text((now_ms - row.evaluated_at_ms) / 1000)} ago</span>"
                 if row.evaluated_at_ms else "-")
    cells = [link, score_badge(row.score) + status, worst,
             "-" if row.data_files is None else f"{row.data_files:,}",
             "-" if row.delete_files is None else f"{row.delete_files:,}",
             "-" if row.read_amplification is None else f"{row.read_amplification:.3g}", _freshness(row), evaluated]
    tds = "".join(f"<td class='l'>{c}</td>" if i in (0, 1, 2, 6) else f"<td>{c}</td>" for i, c in enumerate(cells))
    return (f"<tr data-table='{escape(row.table)}' data-status='{escape(row.status)}' "
            f"data-score='{'' if row.score is None else row.score}'>{tds}</tr>")


def render_index(rows: list[IndexRow], table_href: str, index_href: str, now_ms: int, sort: str = "score",
                 descending: bool = False, listing_error: str | None = None, build_ms: float | None = None) -> str:
    headers = "".join(_header(label, key, first, sort, descending, index_href) for label, key, first in COLUMNS)
    warning = (f"<p class='missed'>The catalog could not be listed ({escape(listing_error)}): tables are those configured "
               "or with stored health; whether they exist is unknown.</p>" if listing_error else "")
    scored = sum(1 for r in rows if r.score is not None)
    note = (f"<p class='none'>{len(rows):,} tables ({scored:,} scored), as of {time_text(now_ms)}. Scores come from each "
            "table's last stored evaluation (the <code>table_health</code> DAG, every 15 minutes), freshness aged to now"
            + (f"; built in {build_ms:.0f} ms" if build_ms is not None else "") + ".</p>")
    body = "".join(_row(r, table_href, now_ms) for r in rows)
    return page("lakeops table health", f"<h1>Table health</h1>{warning}{note}"
                f"<table id='tables'><tr>{headers}</tr>{body}</table>")
