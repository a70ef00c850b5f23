"""The figures of the table-health page, from Iceberg metadata only (no data file is opened).

Current figures come from lakeops.health (one read of the current snapshot's manifests: exact
read amplification, small files, delete files by kind). The history comes from the snapshot
summaries Iceberg writes with every commit (total-data-files, total-delete-files, total-records,
...), so the history costs no manifest read.
Read amplification here is the file-count form, (data files + delete files) / data files: exact
for deletion vectors and file-scoped deletes, a lower bound when one delete file applies to many
data files (the history plot's form; the current figure is lakeops.health's exact one). Zonemap
coverage is the share of a snapshot's live files the zonemap index covers, for the most recent
HISTORY_COVERAGE_SNAPSHOTS snapshots (one manifest read each).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from lakeops.alerts.freshness import evaluate_freshness

if TYPE_CHECKING:
    from pyiceberg.table import Table

    from lakeops.config import CompactionPolicy

HISTORY_COVERAGE_SNAPSHOTS = 30
MAINTENANCE_OPERATIONS = ("replace", "overwrite", "delete")
MAINTENANCE_RUNS_SHOWN = 10


@dataclass(frozen=True)
class HistoryPoint:
    committed_ms: int
    snapshot_id: int
    operation: str
    data_files: int
    delete_files: int
    records: int
    read_amp_files: float
    zonemap_coverage: float | None


@dataclass(frozen=True)
class MaintenanceRun:
    committed_ms: int
    snapshot_id: int
    operation: str
    data_files_before: int
    data_files_after: int
    delete_files_before: int
    delete_files_after: int
    detail: str


@dataclass(frozen=True)
class TableHealthView:
    table: str
    exists: bool
    current: HistoryPoint | None
    history: list[HistoryPoint]
    maintenance: list[MaintenanceRun]
    sla: dict[str, Any]
    missed_deadlines: list[dict[str, Any]] = field(default_factory=list)
    health: dict[str, Any] | None = None
    """lakeops.health's figures of the current snapshot (partitions summarised as their count)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _int(summary: dict[str, str], key: str) -> int:
    try:
        return int(summary.get(key, 0))
    except ValueError:
        return 0


def read_amp_files(data_files: int, delete_files: int) -> float:
    return (data_files + delete_files) / data_files if data_files else 1.0


def _coverage_by_snapshot(table: Table, snapshot_ids: list[int]) -> dict[int, float]:
    from lakeops.zonemap.index import load_index

    index, _unreadable = load_index(table)
    indexed = set(index)
    out = {}
    for snapshot_id in snapshot_ids:
        live = [task.file.file_path for task in table.scan(snapshot_id=snapshot_id).plan_files()]
        out[snapshot_id] = sum(p in indexed for p in live) / len(live) if live else 1.0
    return out


def history_points(table: Table) -> list[HistoryPoint]:
    """One point per snapshot on the current branch, oldest first."""
    snapshots = [s for s in (table.snapshot_by_id(e.snapshot_id) for e in table.history()) if s is not None]
    recent = [s.snapshot_id for s in snapshots[-HISTORY_COVERAGE_SNAPSHOTS:]]
    coverage = _coverage_by_snapshot(table, recent)
    points = []
    for snapshot in snapshots:
        summary = snapshot.summary.additional_properties if snapshot.summary else {}
        data, deletes = _int(summary, "total-data-files"), _int(summary, "total-delete-files")
        operation = snapshot.summary.operation.value if snapshot.summary else "unknown"
        points.append(HistoryPoint(snapshot.timestamp_ms, snapshot.snapshot_id, operation, data, deletes,
                                   _int(summary, "total-records"), round(read_amp_files(data, deletes), 3),
                                   coverage.get(snapshot.snapshot_id)))
    return points


def maintenance_runs(points: list[HistoryPoint], table: Table) -> list[MaintenanceRun]:
    """Commits that rewrote or removed files (compaction, rewrites, deletes), newest first, with their effect."""
    runs = []
    for before, after in zip(points, points[1:], strict=False):
        if after.operation not in MAINTENANCE_OPERATIONS:
            continue
        snapshot = table.snapshot_by_id(after.snapshot_id)
        summary = snapshot.summary.additional_properties if snapshot and snapshot.summary else {}
        lakeops_keys = {k: v for k, v in summary.items() if k.startswith("lakeops.")}
        detail = ", ".join(f"{k}={v}" for k, v in sorted(lakeops_keys.items())) or summary.get("spark.app.id", "")
        runs.append(MaintenanceRun(after.committed_ms, after.snapshot_id, after.operation, before.data_files,
                                   after.data_files, before.delete_files, after.delete_files, detail))
    return list(reversed(runs))[:MAINTENANCE_RUNS_SHOWN]


def current_health(table: Table, policy: CompactionPolicy | None, now: datetime) -> dict[str, Any]:
    from lakeops.health.compute import compute_health

    health = asdict(compute_health(table, policy, now_ms=int(now.timestamp() * 1000)))
    health["partitions"] = len(health["partitions"])
    return health


def table_health_view(table: Table | None, name: str, freshness_sla_minutes: int | None, now: datetime,
                      missed_deadlines: list[dict[str, Any]] | None = None,
                      policy: CompactionPolicy | None = None) -> TableHealthView:
    points = history_points(table) if table is not None else []
    current = points[-1] if points else None
    last_commit = datetime.fromtimestamp(current.committed_ms / 1000, tz=UTC) if current else None
    if freshness_sla_minutes is None:
        sla: dict[str, Any] = {"freshness_sla_minutes": None, "state": "no SLA configured"}
    else:
        status = evaluate_freshness(name, last_commit, freshness_sla_minutes, now)
        sla = {"freshness_sla_minutes": freshness_sla_minutes, "state": "missed" if status.breached else "met",
               "last_commit_age_seconds": status.age_seconds, "late_seconds": status.late_seconds}
    return TableHealthView(name, table is not None, current, points,
                           maintenance_runs(points, table) if table is not None else [], sla, missed_deadlines or [],
                           current_health(table, policy, now) if table is not None else None)
