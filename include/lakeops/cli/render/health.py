"""`lakeops health TABLE`: the table's figures from its metadata (files, small files, delete files by kind,
read amplification), its freshness against its SLA and the partitions over each check's threshold.
Pure: the document from computed values, text from the document."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lakeops.cli.render.text import columns, duration, moment, number, size

if TYPE_CHECKING:
    from lakeops.alerts.freshness import FreshnessStatus
    from lakeops.health.model import TableHealth

LISTED_PARTITIONS = 20
"""Partitions named per check; the count is always whole."""


def health_document(health: TableHealth, freshness: FreshnessStatus, limits: dict[str, dict[str, Any]],
                    over: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    h = health
    return {
        "command": "health", "table": h.table, "snapshot_id": h.snapshot_id, "format_version": h.format_version,
        "evaluated_at": moment(h.evaluated_at_ms),
        "files": {"data_files": h.data_files, "data_records": h.data_records, "data_bytes": h.data_bytes,
                  "avg_file_size_bytes": round(h.avg_file_size_bytes), "small_files": h.small_files,
                  "small_file_bytes": h.small_file_bytes, "small_file_threshold_bytes": h.small_file_threshold_bytes,
                  "target_file_size_bytes": h.target_file_size_bytes, "partitions": len(h.partitions)},
        "deletes": {"delete_files": h.delete_files, "position_delete_files": h.position_delete_files,
                    "equality_delete_files": h.equality_delete_files, "deletion_vectors": h.deletion_vectors,
                    "dangling_delete_files": h.dangling_delete_files, "delete_records": h.delete_records,
                    "delete_bytes": h.delete_bytes, "delete_files_per_data_file": round(h.delete_files_per_data_file, 4),
                    "delete_files_added_per_hour": round(h.delete_files_added_per_hour, 4),
                    "growth_window_hours": h.growth_window_hours},
        "read_amplification": {"files": round(h.read_amp_files, 4), "bytes": round(h.read_amp_bytes, 4)},
        "metadata": {"snapshots": h.snapshots, "data_manifests": h.data_manifests, "delete_manifests": h.delete_manifests,
                     "last_commit": moment(h.last_commit_ms)},
        "freshness": {"last_data_commit": freshness.last_commit.isoformat(timespec="seconds") if freshness.last_commit else None,
                      "age_seconds": None if freshness.age_seconds is None else round(freshness.age_seconds, 1),
                      "sla_minutes": freshness.sla_minutes, "breached": freshness.breached,
                      "late_seconds": round(freshness.late_seconds, 1)},
        "checks": {check: {"thresholds": limits.get(check, {}), "over": len(found), "partitions": found[:LISTED_PARTITIONS]}
                   for check, found in over.items()},
    }


def _freshness(f: dict[str, Any]) -> str:
    if f["last_data_commit"] is None:
        return f"no commit has added data yet: in breach of its {f['sla_minutes']} min SLA"
    verdict = f"BREACHED, {duration(f['late_seconds'])} late" if f["breached"] else "within"
    age = duration(f["age_seconds"])
    return f"last data commit {f['last_data_commit']} ({age} ago): {verdict} its {f['sla_minutes']} min SLA"


def _partition(breach: dict[str, Any]) -> str:
    where = breach["partition"] or "(whole table)"
    return f"{where}: {breach['metric']} {number(breach['value'])} >= {number(breach['threshold'])}"


def render_health(d: dict[str, Any]) -> str:
    files, deletes, amp, meta = d["files"], d["deletes"], d["read_amplification"], d["metadata"]
    rows = [
        ["data files", f"{files['data_files']} ({number(files['data_records'])} rows, {size(files['data_bytes'])}, "
                       f"{size(files['avg_file_size_bytes'])} on average) in {files['partitions']} partition(s)"],
        ["small files", f"{files['small_files']} under {size(files['small_file_threshold_bytes'])} "
                        f"({size(files['small_file_bytes'])}; target {size(files['target_file_size_bytes'])})"],
        ["delete files", f"{deletes['delete_files']}: {deletes['position_delete_files']} position, "
                         f"{deletes['equality_delete_files']} equality, {deletes['deletion_vectors']} deletion vectors; "
                         f"{deletes['dangling_delete_files']} dangling; {number(deletes['delete_records'])} records, "
                         f"{size(deletes['delete_bytes'])}"],
        ["delete growth", f"{number(deletes['delete_files_added_per_hour'])} delete files per hour over the last "
                          f"{number(deletes['growth_window_hours'])} h"],
        ["read amplification", f"{amp['files']:.2f} files opened per data file, {amp['bytes']:.2f} bytes read per live "
                               "byte (1.00 is clean)"],
        ["metadata", f"{meta['snapshots']} snapshots, {meta['data_manifests']} data and {meta['delete_manifests']} delete "
                     f"manifests; last commit {meta['last_commit'] or '-'}"],
        ["freshness", _freshness(d["freshness"])],
    ]
    lines = [f"{d['table']}  snapshot {d['snapshot_id']} (format v{d['format_version']}), evaluated {d['evaluated_at']}"]
    lines += columns(rows, indent="  ")
    for check, result in d["checks"].items():
        limits = ", ".join(f"{k} {number(v)}" for k, v in result["thresholds"].items() if v is not None)
        lines.append(f"  {check}: {result['over']} over its thresholds ({limits})")
        lines += [f"    {_partition(b)}" for b in result["partitions"]]
        if result["over"] > len(result["partitions"]):
            lines.append(f"    ... and {result['over'] - len(result['partitions'])} more")
    return "\n".join(lines)
