"""HTML of one table's page: its score and each part beside it, the action buttons the user may press, the
figures now, history charts on a time axis with the maintenance runs marked, the runs with their plan, what
they did and before/after figures, the commits that rewrote files, the effective policy with each value's
origin, and the freshness SLA."""

from __future__ import annotations

import json
from html import escape

from lakeops.ui.charts import Marker, time_chart
from lakeops.ui.health_view import TablePage, chart_series
from lakeops.ui.page import age_text, page, score_badge, time_text

WINDOWS = ((24, "24 hours"), (168, "7 days"), (720, "30 days"))

ACTION_SCRIPT = """
document.querySelectorAll('#actions button[data-action]').forEach(function (b) {
  b.addEventListener('click', function () {
    var out = document.getElementById('action-result');
    b.disabled = true; out.textContent = 'starting ' + b.dataset.label + '...';
    fetch(b.dataset.url, {method: 'POST', credentials: 'same-origin', headers: {'Accept': 'application/json'}})
      .then(function (r) { return r.json().then(function (j) { return [r.status, j]; }); })
      .then(function (x) {
        b.disabled = false;
        if (x[0] !== 200) {
          out.textContent = 'refused (' + x[0] + '): ' + (x[1].detail || ''); out.className = 'missed'; return;
        }
        out.className = 'met';
        out.innerHTML = 'started <a target="_top" id="started-run" href="' + x[1].href + '">' + x[1].dag_id + ' ' +
          x[1].run_id + '</a>' + (x[1].paused ? ' (the DAG is paused: the run waits until it is unpaused)' : '');
      })
      .catch(function (e) { b.disabled = false; out.textContent = 'failed: ' + e; out.className = 'missed'; });
  });
});
"""


def _card(label: str, value: str) -> str:
    return f"<div class='card'><div class='v'>{escape(value)}</div><div class='k'>{escape(label)}</div></div>"


def _lost(lost: float, applies: bool) -> str:
    if not applies:
        return "n/a"
    return f"−{lost:.1f}" if round(lost, 1) > 0 else "0"


def _score(p: TablePage) -> str:
    if p.score is None:
        reason = p.score_error or ("the table does not exist in the catalog yet" if not p.exists else "no evaluation yet")
        return f"<p>{score_badge(None, 'big', 'score')} <span class='none'>{escape(reason)}</span></p>"
    rows = "".join(
        f"<tr data-part='{part.name}'><td class='l'>{escape(part.label)}</td><td class='l'>{escape(part.figure)}</td>"
        f"<td>{_lost(part.lost, part.applies)}</td><td>{part.weight}</td></tr>" for part in p.score.parts)
    worst = p.score.worst
    soft = (f"Layout parts are scaled by the small-table factor {p.score.small_table_factor:.2f} (1.0 for a table of 12 or "
            "more files of the target size)." if p.score.small_table_factor < 1 else "")
    error = (f"<p class='missed'>Live evaluation failed, last stored one shown: {escape(p.score_error)}</p>"
             if p.score_error else "")
    return (f"{error}<p>{score_badge(p.score.score, 'big', 'score')} "
            f"<span id='worst'>{'worst part: ' + escape(worst.label) if worst else 'no part loses points'}</span></p>"
            f"<table id='parts'><tr><th class='l'>part</th><th class='l'>figure</th><th>points</th><th>of</th></tr>{rows}"
            f"</table><p class='none'>score = ceil(100 − points lost). {soft} Formula: docs/health.md#health-score.</p>")


def _actions(p: TablePage, api_href: str) -> str:
    if not p.exists:
        return ""
    if not p.actions:
        return "<p class='none' id='actions'>Your Airflow role cannot trigger DAG runs: no maintenance can be started here.</p>"
    buttons = "".join(
        f"<button data-action='{escape(a.name)}' data-label='{escape(a.label)}' data-url='{escape(api_href)}{escape(a.name)}'"
        f" title='a run of {escape(a.dag_id)}{' (paused)' if a.paused else ''}'>{escape(a.label)}</button>"
        for a in p.actions)
    return f"<div id='actions'>{buttons}<div id='action-result' class='none'></div></div>"


def _now(p: TablePage) -> str:
    h = p.health
    if not h:
        return "<p class='none'>No figures: the table has no snapshot yet, or it could not be read.</p>"
    i = p.inputs
    cards = [_card("data files", f"{h['data_files']:,}"), _card("delete files", f"{h['delete_files']:,}"),
             _card("records", f"{h['data_records']:,}"), _card("small files", f"{h['small_files']:,}"),
             _card("read amplification (files)", f"{h['read_amp_files']:.3g}"),
             _card("read amplification (bytes)", f"{h['read_amp_bytes']:.3g}"),
             _card("partitions", f"{h['partitions']:,}"), _card("snapshots", f"{h['snapshots']:,}"),
             _card("zonemap coverage", "n/a" if i is None or i.zonemap_coverage is None else f"{i.zonemap_coverage:.0%}"),
             _card("last commit", time_text(h.get("last_commit_ms")))]
    return "<div class='cards' id='current'>" + "".join(cards) + "</div>"


def _sla(p: TablePage) -> str:
    sla = p.sla
    state = sla.get("state", "")
    css = {"met": "met", "missed": "missed"}.get(state, "none")
    label = f"freshness SLA {state}" if sla.get("freshness_sla_minutes") else "no freshness SLA configured"
    text = f"<span class='{css}' id='sla-state'>{escape(label)}</span>"
    if sla.get("freshness_sla_minutes"):
        age = sla.get("last_commit_age_seconds")
        text += f": rows last changed {age_text(age)}{' ago' if age is not None else ''}, SLA {sla['freshness_sla_minutes']} min"
        if state == "missed" and age is not None:
            text += f", {age_text(sla.get('late_seconds', 0))} late"
    rows = "".join(f"<tr><td class='l'>{escape(str(d['dag_id']))}</td><td class='l'>{escape(str(d['run_id']))}</td>"
                   f"<td class='l'>{escape(str(d['deadline']))}</td></tr>" for d in p.missed_deadlines)
    missed = (f"<table><tr><th class='l'>DAG</th><th class='l'>run</th><th class='l'>missed deadline</th></tr>{rows}</table>"
              if rows else "<p class='none'>No missed DAG deadline recorded for this table.</p>")
    return f"<p>{text}</p>{missed}"


def _charts(p: TablePage, page_href: str, hours: int) -> str:
    start, end = p.window
    current = (p.score, p.inputs) if p.score is not None and p.inputs is not None and not p.score_error else None
    series = chart_series(p.history, p.now_ms, current)
    markers = tuple(Marker(r.at_ms, r.label, r.href, r.state, r.run_id) for r in p.runs)
    sla = p.sla.get("freshness_sla_minutes")
    charts = [time_chart("score", series["score"], start, end, markers=markers, fixed=(0.0, 100.0))]
    for name in ("data files", "delete files", "read amplification (files)"):
        charts.append(time_chart(name, series[name], start, end, markers=markers, floor=0.0))
    charts.append(time_chart("freshness lag (min)", series["freshness lag (min)"], start, end, markers=markers, floor=0.0,
                             reference=(float(sla), f"SLA {sla} min") if sla else None))
    if series["zonemap coverage (%)"]:
        charts.append(time_chart("zonemap coverage (%)", series["zonemap coverage (%)"], start, end, markers=markers,
                                 fixed=(0.0, 100.0)))
    links = " ".join(f"<a href='{escape(page_href)}?hours={h}'>{label}</a>" if h != hours else f"<b>{label}</b>"
                     for h, label in WINDOWS)
    return (f"<p class='none'>{len(p.history)} stored evaluation(s) from {time_text(start)} to {time_text(end)} (UTC), "
            f"the last point is now; maintenance runs are the dashed lines. Window: {links}</p>"
            f"<div class='charts'>{''.join(charts)}</div>")


def _list(lines: tuple[str, ...]) -> str:
    return "<ul>" + "".join(f"<li>{escape(line)}</li>" for line in lines) + "</ul>" if lines else "<span class='none'>-</span>"


def _runs(p: TablePage) -> str:
    if not p.runs:
        return "<p class='none'>No maintenance DAG run for this table in Airflow's records (or your role cannot read them).</p>"
    rows = []
    for r in p.runs:
        figures = "".join(f"<tr><td class='l'>{escape(f)}</td><td>{escape(b)}</td><td>{escape(a)}</td></tr>"
                          for f, b, a in r.figures)
        figures_table = (f"<table><tr><th class='l'>figure</th><th>before</th><th>after</th></tr>{figures}</table>"
                         if figures else "<span class='none'>-</span>")
        rows.append(
            f"<tr data-run='{escape(r.run_id)}' data-dag='{escape(r.dag_id)}'><td class='l'>{time_text(r.at_ms)}</td>"
            f"<td class='l'><a class='run-link' href='{escape(r.href)}' target='_top'>{escape(r.dag_id)}<br>"
            f"{escape(r.run_id)}</a></td><td class='l'>{escape(r.kind)}{' (dry run)' if r.dry_run else ''}</td>"
            f"<td class='l'>{escape(r.state)}</td><td class='l'>{_list(r.plan)}</td><td class='l'>{_list(r.did)}</td>"
            f"<td class='l'>{figures_table}</td></tr>")
    return ("<table id='runs'><tr><th class='l'>started</th><th class='l'>DAG run</th><th class='l'>kind</th>"
            "<th class='l'>state</th><th class='l'>plan</th><th class='l'>what it did</th><th class='l'>before / after</th></tr>"
            + "".join(rows) + "</table>")


def _commits(p: TablePage) -> str:
    if not p.commits:
        return "<p class='none'>No commit that rewrote or removed files (compaction, rewrite, delete) in the table's history.</p>"
    rows = "".join(
        f"<tr><td class='l'>{time_text(c.committed_ms)}</td><td class='l'>{escape(c.operation)}</td>"
        f"<td>{c.data_files_before:,} → {c.data_files_after:,}</td><td>{c.delete_files_before:,} → {c.delete_files_after:,}</td>"
        f"<td class='l'>{escape(c.detail)}</td></tr>" for c in p.commits)
    return ("<table id='commits'><tr><th class='l'>committed</th><th class='l'>operation</th><th>data files</th>"
            f"<th>delete files</th><th class='l'>detail</th></tr>{rows}</table>")


def _policy(p: TablePage) -> str:
    if not p.policy:
        return "<p class='none'>The table is neither configured nor found by a discovery rule.</p>"
    rows = []
    for setting, entry in p.policy.items():
        where = (f"{entry['property']} = {entry['property_value']}" if "property" in entry else entry.get("key", ""))
        value = entry["value"]
        rows.append(f"<tr data-setting='{escape(setting)}'><td class='l'>{escape(setting)}</td>"
                    f"<td class='l'>{escape(json.dumps(value) if not isinstance(value, str) else value)}</td>"
                    f"<td class='l'>{escape(entry['origin'])}</td><td class='l'>{escape(str(where))}</td></tr>")
    return ("<details id='policy'><summary>every setting, its value and where it came from (config defaults &lt; table "
            "property &lt; config entry)</summary><table><tr><th class='l'>setting</th><th class='l'>value</th>"
            "<th class='l'>origin</th><th class='l'>where</th></tr>" + "".join(rows) + "</table></details>")


def _models(p: TablePage) -> str:
    from lakeops.etl.status import status_lines

    return "".join(f"<h2>ETL model {escape(m['model'])}</h2><p>Its sources, from the catalog's metadata: the commits its "
                   f"watermarks have not read yet.</p><ul id='etl-{escape(m['model'])}'>"
                   + "".join(f"<li>{escape(line)}</li>" for line in status_lines(m, p.now_ms)) + "</ul>"
                   for m in p.models)


def render_table_page(p: TablePage, index_href: str, api_href: str, hours: int) -> str:
    page_href = f"{index_href}{p.table}"
    body = (f"<p><a href='{escape(index_href)}'>all tables</a></p><h1>Table health: {escape(p.table)}</h1>"
            + ("" if p.exists else "<p class='missed'>The table does not exist in the catalog yet.</p>")
            + "<h2>Score</h2>" + _score(p)
            + "<h2>Actions</h2>" + _actions(p, api_href)
            + "<h2>Now</h2>" + _now(p)
            + "<h2>Freshness SLA</h2>" + _sla(p)
            + _models(p)
            + "<h2>History</h2>" + _charts(p, page_href, hours)
            + "<h2>Maintenance runs</h2>" + _runs(p)
            + "<h2>Commits that rewrote or removed files</h2>" + _commits(p)
            + "<h2>Effective policy</h2>" + _policy(p))
    return page(f"lakeops table health: {p.table}", body, ACTION_SCRIPT if p.actions else "")
