"""`lakeops zonemap build` and `lakeops zonemap consolidate`: what was published and how far the index had
drifted from the table's live files. Pure."""

from __future__ import annotations

from typing import Any


def _drift(drift: dict[str, Any] | None) -> list[str]:
    if not drift:
        return []
    line = (f"  drift: {drift['live_files']} live file(s) in scope, {100 * drift['coverage']:.1f}% indexed before, "
            f"{drift['added']} entr{'y' if drift['added'] == 1 else 'ies'} added from manifest metrics, "
            f"{drift['stale_entries']} stale dropped")
    unreadable = drift.get("unreadable") or []
    return [line] + ([f"  {len(unreadable)} unreadable zonemap file(s) ignored and rebuilt"] if unreadable else [])


def render_zonemap(d: dict[str, Any]) -> str:
    r = d["result"]
    what = f"{r['level']} zonemap {r['period']}".rstrip()
    if r["status"] == "empty_table":
        return f"{d['table']}: the table has no snapshot yet; no zonemap to build"
    if r["status"] == "exists":
        found = f" (newest master {r['period']}: {r['entries']} entries, snapshot {r['snapshot_id']})" if r.get("path") else ""
        return (f"{d['table']}: the table has a zonemap index already{found}; nothing built. "
                "`lakeops zonemap consolidate` keeps it current")
    lines = [f"{d['table']}: {what} published: {r['entries']} entries, reconciled with snapshot {r['snapshot_id']}",
             f"  {r['path']}"]
    lines += _drift(r.get("drift"))
    if r.get("removed_micro"):
        lines.append(f"  {r['removed_micro']} micro zonemap file(s) it covers removed")
    return "\n".join(lines)
