"""`lakeops compact` and `lakeops expire`: the plan or the run's outcome per table. Pure."""

from __future__ import annotations

from typing import Any

from lakeops.cli.render.text import columns, number, size


def _action_line(a: dict[str, Any]) -> str:
    how = f" ({a['strategy']}{' by ' + a['sort_order'] if a.get('sort_order') else ''})" if a.get("strategy") else ""
    inputs = f"{a['input_files']} data + {a['input_delete_files']} delete files, {size(a['input_bytes'])}"
    outputs = f"{a['expected_files_after']} data + {a['expected_delete_files_after']} delete files"
    return f"{a['kind']} on {a['partition'] or 'the table'}{how}: {inputs} -> {outputs} expected"


def render_plan(plan: dict[str, Any], indent: str = "  ") -> list[str]:
    lines = [f"{indent}{len(plan['actions'])} procedure call(s), {size(plan['planned_bytes'])} planned "
             f"(budget {size(plan['budget_bytes'])})"]
    lines += [f"{indent}  {_action_line(a)}" for a in plan["actions"]]
    for decision in plan.get("selected", []):
        lines.append(f"{indent}    {decision['partition'] or '(table)'}: {decision['reason']}")
    for deferred in plan.get("deferred", []):
        lines.append(f"{indent}  deferred {deferred['partition']}: {deferred['reason']}")
    return lines


def _outcome(a: dict[str, Any]) -> str:
    outputs = ", ".join(f"{k.removesuffix('_count').replace('_', ' ')} {v}" for k, v in a.get("outputs", {}).items() if v)
    where = a["partition"] or "the table"
    text = f"{a['kind']} on {where}: {a['status']} after {a['attempts']} attempt(s) in {number(a.get('duration_s'))} s"
    text += f" ({outputs})" if outputs else ""
    if a.get("error"):
        text += f"; error: {a['error']}"
    return text


def render_compaction(d: dict[str, Any]) -> str:
    table, plan, result = d["table"], d["plan"], d.get("result")
    if d["status"] == "nothing_to_do":
        return "\n".join([f"{table}: nothing to compact: no partition is over a threshold", *render_plan(plan)])
    if result is None:
        return "\n".join([f"{table}: compaction plan (dry run: nothing was rewritten)", *render_plan(plan)])
    before, after = result["before"], result.get("after") or result["before"]
    lines = [f"{table}: compaction {result['status']} in {number(result.get('duration_s'))} s (run {d['run_id']})"]
    lines += columns([
        ["", "before", "after"],
        ["data files", str(before["data_files"]), str(after["data_files"])],
        ["small files", str(before["small_files"]), str(after["small_files"])],
        ["applied delete files", str(before["applied_delete_files"]), str(after["applied_delete_files"])],
        ["dangling delete files", str(before["dangling_delete_files"]), str(after["dangling_delete_files"])],
        ["read amplification", number(before["read_amp_files"]), number(after["read_amp_files"])],
    ], indent="  ")
    lines += [f"  {_outcome(a)}" for a in result.get("actions", [])]
    if result.get("conflicts"):
        lines.append(f"  {result['conflicts']} conflicting attempt(s) with concurrent writers, retried")
    zonemap = result.get("zonemap") or {}
    if zonemap.get("status") not in (None, "no_zonemap", "unchanged"):
        lines.append(f"  zonemap: {zonemap['status']}" + (f", {zonemap['entries']} entries" if "entries" in zonemap else ""))
    return "\n".join(lines)


def snapshot_rows(snapshots: list[dict[str, Any]], expire_ids: list[int], kept: dict[int, str]) -> list[dict[str, Any]]:
    """Each snapshot with its fate in the run: expire, or keep with the reason (a ref or a guard that names it,
    else the retention policy: newer than the cut-off or among the last snapshots kept)."""
    going = set(expire_ids)
    return [{**s, "fate": "expire"} if s["snapshot_id"] in going else
            {**s, "fate": "keep", "reason": kept.get(s["snapshot_id"], "retention")} for s in snapshots]


def render_expiry(d: dict[str, Any]) -> str:
    r = d["result"]
    verb = "would expire" if r["dry_run"] else "expired"
    count = len(r["expire_ids"]) if r["dry_run"] else r["snapshots_expired"]
    lines = [f"{d['table']}: expiry{' (dry run: nothing was deleted)' if r['dry_run'] else ''}: {r['snapshots_before']} "
             f"snapshot(s), {count} {verb} (older than {r['older_than']}, retain last {r['retain_last']})"]
    rows = [["snapshot", "committed at", "operation", "fate"]]
    for s in d["snapshots"]:
        fate = s["fate"] + (f" ({s['reason']})" if s.get("reason") else "")
        rows.append([str(s["snapshot_id"]), str(s["committed_at"]), str(s.get("operation") or "-"), fate])
    lines += columns(rows, indent="  ")
    files = (f"{r['predicted_files']} file(s), {size(r['predicted_bytes'])} would go" if r["dry_run"]
             else f"{r['files_removed']} file(s), {size(r['bytes_removed'])} removed")
    orphans = f"{r['orphans_found']} orphan file(s) older than {r['orphan_older_than']} ({size(r['orphan_bytes'])})"
    orphans += " found, kept" if r["dry_run"] else f", {r['orphans_removed']} removed"
    lines += [f"  {files}; {orphans}; {r['zonemap_files_collected']} zonemap file(s) "
              f"{'collectable' if r['dry_run'] else 'collected'}"]
    lines += [f"  warning: {w}" for w in r.get("warnings", [])]
    return "\n".join(lines)
