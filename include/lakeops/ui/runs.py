"""A table's maintenance runs as the table page shows them: which DAG run, its plan, what it did and the
figures before and after, from what Airflow kept of the run (its state and conf, the planner task's XCom and
the job's result, which the Spark operator pushes as XCom from the job's LAKEOPS_RESULT line). Pure."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

KINDS = {"compact_on_health": "compaction", "compact_tables": "compaction", "expire_snapshots": "expiry",
         "zonemap_daily": "zonemap", "zonemap_hourly": "zonemap"}
COMPACTION_FIGURES = (("data files", "data_files"), ("small files", "small_files"),
                      ("applied delete files", "applied_delete_files"), ("dangling delete files", "dangling_delete_files"),
                      ("read amplification (files)", "read_amp_files"), ("read amplification (bytes)", "read_amp_bytes"),
                      ("data manifests", "data_manifests"))
MIB = 1024 * 1024


@dataclass(frozen=True)
class RawRun:
    """What Airflow holds of one maintenance DAG run for one table."""

    dag_id: str
    run_id: str
    run_type: str
    state: str
    queued_ms: int | None
    start_ms: int | None
    end_ms: int | None
    conf: dict[str, Any] = field(default_factory=dict)
    task_state: str | None = None
    """State of the run's work task for the table (compact, expire, consolidate); None: it had none."""
    result: dict[str, Any] | None = None
    plan: dict[str, Any] | None = None

    @property
    def dry_run(self) -> bool:
        """What the job reported, else what the run was asked."""
        if self.result and "dry_run" in self.result:
            return bool(self.result["dry_run"])
        return bool((self.conf or {}).get("dry_run"))


@dataclass(frozen=True)
class MaintenanceRun:
    kind: str
    dag_id: str
    run_id: str
    run_type: str
    state: str
    at_ms: int
    end_ms: int | None
    dry_run: bool
    href: str
    plan: tuple[str, ...]
    did: tuple[str, ...]
    figures: tuple[tuple[str, str, str], ...]
    """(figure, before, after)"""

    @property
    def label(self) -> str:
        return f"{self.kind}{' (dry run)' if self.dry_run else ''} {self.state}: {self.dag_id} {self.run_id}"


def run_href(dag_id: str, run_id: str, base: str = "") -> str:
    """The run's page in Airflow's UI."""
    return f"{base.rstrip('/')}/dags/{quote(dag_id, safe='')}/runs/{quote(run_id, safe='')}"


def _number(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _action_line(a: dict[str, Any]) -> str:
    where = a.get("partition") or "the table"
    sizes = []
    if a.get("input_files"):
        sizes.append(f"{a['input_files']:,} files")
    if a.get("input_delete_files"):
        sizes.append(f"{a['input_delete_files']:,} delete files")
    if a.get("input_bytes"):
        sizes.append(f"{a['input_bytes'] / MIB:,.1f} MiB")
    extra = f" ({', '.join(sizes)})" if sizes else ""
    reason = f": {a['reason']}" if a.get("reason") else ""
    return f"{a.get('kind', '?')} on {where}{extra}{reason}"


def _compaction(raw: RawRun) -> tuple[list[str], list[str], list[tuple[str, str, str]]]:
    plan, result = raw.plan or {}, raw.result or {}
    lines = [_action_line(a) for a in plan.get("actions", [])]
    deferred = plan.get("deferred") or result.get("deferred") or []
    if deferred:
        lines.append(f"{len(deferred)} partition(s) deferred to a later run (byte budget or not plannable)")
    if not lines and result.get("actions"):
        lines = [_action_line(a) for a in result["actions"]]
    did: list[str] = []
    if result:
        did.append(f"status {result.get('status', '?')}" + (f" in {result['duration_s']} s" if result.get("duration_s") else ""))
        if not raw.dry_run:
            for outcome in result.get("actions", []):
                outputs = ", ".join(f"{k} {v}" for k, v in (outcome.get("outputs") or {}).items())
                did.append(f"{outcome.get('kind')} on {outcome.get('partition') or 'the table'}: {outcome.get('status')}"
                           + (f" ({outputs})" if outputs else "") + (f": {outcome['error']}" if outcome.get("error") else ""))
            if result.get("conflicts"):
                did.append(f"{result['conflicts']} conflicting commit(s) retried or skipped")
    before, after = result.get("before") or {}, result.get("after") or {}
    figures = [(label, _number(before.get(key)), _number(after.get(key)) if after else "-")
               for label, key in COMPACTION_FIGURES if key in before or key in after]
    return lines, did, figures


def _expiry(raw: RawRun) -> tuple[list[str], list[str], list[tuple[str, str, str]]]:
    r = raw.result or {}
    if not r:
        return [], [], []
    plan = [f"expire {len(r.get('expire_ids') or []):,} snapshot(s) older than {r.get('older_than')}, keeping the last "
            f"{r.get('retain_last')}; orphans older than {r.get('orphan_older_than')}"]
    if r.get("kept_by_guards"):
        plan.append(f"{len(r['kept_by_guards'])} snapshot(s) kept by guards (consumers, branches, running compactions)")
    did = [f"{r.get('snapshots_expired', 0):,} snapshot(s) expired, {r.get('files_removed', 0):,} files "
           f"({(r.get('bytes_removed') or 0) / MIB:,.1f} MiB) removed, {r.get('orphans_found', 0):,} orphan(s) found, "
           f"{r.get('zonemap_files_collected', 0):,} zonemap file(s) collected"]
    if r.get("dry_run"):
        did = [f"dry run: would remove {r.get('predicted_files', 0):,} files "
               f"({(r.get('predicted_bytes') or 0) / MIB:,.1f} MiB) and {r.get('orphans_found', 0):,} orphan(s)"]
    did += [f"warning: {w}" for w in r.get("warnings") or []]
    figures = [("snapshots", _number(r.get("snapshots_before")), _number(r.get("snapshots_after")))]
    return plan, did, figures


def _zonemap(raw: RawRun) -> tuple[list[str], list[str], list[tuple[str, str, str]]]:
    r = raw.result or {}
    if not r:
        return [], [], []
    plan = [f"consolidate the {r.get('level', '?')} zonemap of {r.get('period', '?')}, reconciled with the live files"]
    did = [f"status {r.get('status')}: {r.get('entries', 0):,} entries"]
    drift = r.get("drift") or {}
    figures = []
    if drift:
        did.append(f"{drift.get('added', 0):,} entries added, {drift.get('stale_entries', 0):,} stale entries dropped")
        live = drift.get("live_files") or 0
        after = (drift.get("covered", 0) + drift.get("added", 0)) / live if live else 1.0
        figures.append(("zonemap coverage", f"{drift.get('coverage', 0):.0%}", f"{min(after, 1.0):.0%}"))
    return plan, did, figures


def summarize(raw: RawRun, base: str = "") -> MaintenanceRun:
    kind = KINDS.get(raw.dag_id, raw.dag_id)
    plan, did, figures = {"compaction": _compaction, "expiry": _expiry, "zonemap": _zonemap}.get(
        kind, lambda r: ([], [], []))(raw)
    if raw.task_state is None and raw.state == "success" and not did:
        did = ["nothing to do for this table: no work task ran for it"]
    if raw.state in ("queued",) and not did:
        did = ["queued: it runs once the DAG is unpaused and a slot is free"]
    return MaintenanceRun(kind, raw.dag_id, raw.run_id, raw.run_type, raw.state,
                          raw.start_ms or raw.queued_ms or raw.end_ms or 0, raw.end_ms, raw.dry_run,
                          run_href(raw.dag_id, raw.run_id, base), tuple(plan), tuple(did), tuple(figures))
