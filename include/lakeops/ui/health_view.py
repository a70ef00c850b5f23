"""The figures of one table's page: its score now (evaluated live from metadata: one table is cheap), the stored
evaluations of the chosen window for the charts, the commits that rewrote or removed files (from the snapshot
summaries), its effective policy with each value's origin, and its freshness SLA. Airflow's side (maintenance
runs, missed deadlines, which actions the user may start) is passed in by the plugin."""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from lakeops.alerts.freshness import evaluate_freshness
from lakeops.health.score import HealthScore, ScoreInputs, freshness_lag_s, score

if TYPE_CHECKING:
    from pyiceberg.table import Table

    from lakeops.config import TableConfig
    from lakeops.health.scores import ScoreRow
    from lakeops.ui.runs import MaintenanceRun

log = logging.getLogger(__name__)
MAINTENANCE_OPERATIONS = ("replace", "overwrite", "delete")
COMMITS_SHOWN = 10


@dataclass(frozen=True)
class SnapshotPoint:
    committed_ms: int
    snapshot_id: int
    operation: str
    data_files: int
    delete_files: int
    records: int


@dataclass(frozen=True)
class MaintenanceCommit:
    committed_ms: int
    snapshot_id: int
    operation: str
    data_files_before: int
    data_files_after: int
    delete_files_before: int
    delete_files_after: int
    detail: str


@dataclass(frozen=True)
class ActionButton:
    name: str
    label: str
    dag_id: str
    paused: bool | None = None


@dataclass
class TablePage:
    table: str
    exists: bool
    now_ms: int
    score: HealthScore | None = None
    inputs: ScoreInputs | None = None
    health: dict[str, Any] | None = None
    """lakeops.health's figures now (partitions as their count)."""
    score_error: str | None = None
    history: list[ScoreRow] = field(default_factory=list)
    window: tuple[int, int] = (0, 0)
    snapshots: list[SnapshotPoint] = field(default_factory=list)
    commits: list[MaintenanceCommit] = field(default_factory=list)
    runs: list[MaintenanceRun] = field(default_factory=list)
    policy: dict[str, dict[str, Any]] = field(default_factory=dict)
    sla: dict[str, Any] = field(default_factory=dict)
    missed_deadlines: list[dict[str, Any]] = field(default_factory=list)
    actions: list[ActionButton] = field(default_factory=list)
    models: list[dict[str, Any]] = field(default_factory=list)
    """The ETL model that writes the table, if one does: lakeops.etl.status.model_status."""

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.table, "exists": self.exists, "now_ms": self.now_ms,
            "score": self.score.as_dict() if self.score else None,
            "inputs": self.inputs.as_dict() if self.inputs else None, "health": self.health,
            "score_error": self.score_error,
            "history": [{"evaluated_at_ms": r.evaluated_at_ms, "score": r.score, "worst": r.worst,
                         "snapshot_id": r.snapshot_id, "inputs": r.inputs.as_dict()} for r in self.history],
            "window": list(self.window), "snapshots": [asdict(p) for p in self.snapshots],
            "commits": [asdict(c) for c in self.commits], "runs": [asdict(r) for r in self.runs],
            "policy": self.policy, "sla": self.sla, "missed_deadlines": self.missed_deadlines,
            "actions": [asdict(a) for a in self.actions], "models": self.models,
        }


def _int(summary: dict[str, str], key: str) -> int:
    try:
        return int(summary.get(key, 0))
    except ValueError:
        return 0


def snapshot_points(table: Table) -> list[SnapshotPoint]:
    """One point per snapshot of the current branch, oldest first, from the summaries every commit writes."""
    points = []
    for entry in table.history():
        snapshot = table.snapshot_by_id(entry.snapshot_id)
        if snapshot is None:
            continue
        summary = snapshot.summary.additional_properties if snapshot.summary else {}
        operation = snapshot.summary.operation.value if snapshot.summary else "unknown"
        points.append(SnapshotPoint(snapshot.timestamp_ms, snapshot.snapshot_id, operation,
                                    _int(summary, "total-data-files"), _int(summary, "total-delete-files"),
                                    _int(summary, "total-records")))
    return points


def maintenance_commits(points: list[SnapshotPoint], table: Table) -> list[MaintenanceCommit]:
    """Commits that rewrote or removed files (compaction, rewrites, deletes), newest first, with their effect."""
    commits = []
    for before, after in zip(points, points[1:], strict=False):
        if after.operation not in MAINTENANCE_OPERATIONS:
            continue
        snapshot = table.snapshot_by_id(after.snapshot_id)
        summary = snapshot.summary.additional_properties if snapshot and snapshot.summary else {}
        lakeops_keys = {k: v for k, v in summary.items() if k.startswith("lakeops.")}
        detail = ", ".join(f"{k}={v}" for k, v in sorted(lakeops_keys.items())) or summary.get("spark.app.id", "")
        commits.append(MaintenanceCommit(after.committed_ms, after.snapshot_id, after.operation, before.data_files,
                                         after.data_files, before.delete_files, after.delete_files, detail))
    return list(reversed(commits))[:COMMITS_SHOWN]


def sla_state(inputs: ScoreInputs | None, sla_minutes: int | None, now_ms: int, table: str) -> dict[str, Any]:
    if sla_minutes is None:
        return {"freshness_sla_minutes": None, "state": "no SLA configured"}
    last = inputs.last_data_commit_ms if inputs else None
    status = evaluate_freshness(table, None if last is None else datetime.fromtimestamp(last / 1000, tz=UTC),
                                sla_minutes, datetime.fromtimestamp(now_ms / 1000, tz=UTC))
    return {"freshness_sla_minutes": sla_minutes, "state": "missed" if status.breached else "met",
            "last_commit_age_seconds": status.age_seconds, "late_seconds": status.late_seconds}


def live_score(loaded: Table, spec: TableConfig, now_ms: int,
               growth_window_hours: float = 1.0) -> tuple[HealthScore, ScoreInputs, dict[str, Any]]:
    """The table's score now, from its metadata and zonemap index (what the sweep records, not stored)."""
    from lakeops.health.compute import compute_health
    from lakeops.health.score import inputs_from
    from lakeops.health.zonemap_figures import zonemap_figures
    from lakeops.tables.commits import last_data_commit_ms

    health = compute_health(loaded, spec.compaction, now_ms=now_ms, growth_window_hours=growth_window_hours)
    inputs = inputs_from(health, spec, last_data_commit_ms(loaded), zonemap_figures(loaded, spec))
    figures = asdict(health)
    figures["partitions"] = len(health.partitions)
    return score(inputs, now_ms), inputs, figures


def chart_series(rows: list[ScoreRow], now_ms: int, current: tuple[HealthScore, ScoreInputs] | None) -> dict[str, list]:
    """Series name -> [(time, value)] from the stored evaluations, ending with the live one when given."""
    points = [(r.evaluated_at_ms, r.score, r.inputs) for r in rows]
    if current is not None:
        points.append((now_ms, current[0].score, current[1]))
    series: dict[str, list[tuple[int, float]]] = {"score": [], "data files": [], "delete files": [],
                                                   "read amplification (files)": [], "freshness lag (min)": [],
                                                   "zonemap coverage (%)": []}
    for at, value, inputs in points:
        series["score"].append((at, float(value)))
        series["data files"].append((at, float(inputs.data_files)))
        if inputs.delete_files is not None:
            series["delete files"].append((at, float(inputs.delete_files)))
        series["read amplification (files)"].append((at, inputs.read_amp_files))
        lag = freshness_lag_s(inputs, at)
        if lag is not None:
            series["freshness lag (min)"].append((at, lag / 60))
        if inputs.zonemap_coverage is not None:
            series["zonemap coverage (%)"].append((at, inputs.zonemap_coverage * 100))
    return series
