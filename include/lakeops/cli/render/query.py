"""`lakeops query`: the plan (files planned, pruned by the index, time) and, without --explain, the rows. Pure."""

from __future__ import annotations

from typing import Any


def render_query(d: dict[str, Any]) -> str:
    how = "full listing of the manifests" if d["full_listing"] else f"master + {d['replayed_snapshots']} snapshot(s) since"
    lines = [
        f"{d['table']} WHERE {d['where'] or 'true'}",
        f"  planned {d['live_files']:,} live file(s) in {d['planning_ms']:,.1f} ms ({how}; index covers "
        f"{100 * d['coverage']:.1f}%)",
        f"  pruned by the index: {d['pruned_by_index']:,}; candidates: {d['candidate_files']:,} "
        f"(min/max statistics alone keep {d['minmax_files']:,})",
        f"  a Spark read (lakeops.read): {d['spark_read']['method']}: {d['spark_read']['reason']}",
    ]
    if d["spark_read"]["method"] == "plain":
        lines.append(f"  note: this command reads all {d['candidate_files']:,} candidates in this process, one by one; "
                     "for a predicate this broad a Spark read (lakeops.read) is faster")
    if "rows" in d:
        lines.append(f"  read {d['files_read']:,} file(s) in {d['read_ms']:,.1f} ms: {d['rows']:,} row(s)")
        lines += [f"  {row}" for row in d["shown"]]
    return "\n".join(lines)
