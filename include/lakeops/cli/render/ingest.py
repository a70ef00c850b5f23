"""`lakeops ingest TABLE --start T --end T`: what the batch committed. Pure."""

from __future__ import annotations

from typing import Any


def render_ingest(d: dict[str, Any]) -> str:
    r = d["result"]
    head = f"{d['table']}: {d['format']} batch {r['batch_id']} ({d['mode']}): {r['status']}"
    if r["status"] == "no_input":
        return f"{head}: no landed files between {d['start']} and {d['end']} under {d['source']}"
    if r["status"] == "already_committed":
        return f"{head}: the interval was ingested before; nothing committed twice"
    if d["format"] == "cdc":
        figures = (f"{r['files']} file(s), {r['changes']} change(s) on {r['keys']} key(s) ({r['deletes']} deletes), "
                   f"{r['quarantined']} quarantined, snapshot {r['snapshot_id']}")
    else:
        figures = f"{r['files']} file(s), {r['rows']} row(s), {r['quarantined']} quarantined, snapshot {r['snapshot_id']}"
    lines = [head, f"  {figures}"]
    if d.get("writers"):
        lines.append(f"  {len(d['writers'])} writer job(s) staged " + ", ".join(
            f"{w['data_files']} data file(s)" for w in d["writers"]) + "; committed once")
    if r.get("quarantined"):
        lines.append(f"  bad lines are in {d['quarantine_table']} with the reason")
    return "\n".join(lines)
