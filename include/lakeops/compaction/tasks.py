"""What the compaction DAG's Python tasks call: metadata only (pyiceberg), no Spark."""

from __future__ import annotations

import json
import logging
from typing import Any

from lakeops.compaction.plan import plan_configured
from lakeops.config import LakeopsConfig, load_config

log = logging.getLogger(__name__)


def plan_for(table: str, config: LakeopsConfig | None = None) -> dict[str, Any]:
    """The compaction plan of a configured table as JSON-ready data (CompactionPlan.as_dict())."""
    from lakeops.catalog import load_catalog
    from lakeops.health.compute import compute_health
    from lakeops.tables.effective import load_effective

    config = config or load_config()
    spec, loaded = load_effective(config, load_catalog(config.catalog), table)
    plan = plan_configured(compute_health(loaded, spec.compaction, growth_window_hours=config.health.growth_window_hours),
                           spec)
    for action in plan.selected:
        log.info("plan %s %s: %s (%d files, %d delete files, %d bytes) because %s", table, action.partition or "(table)",
                 action.kind, action.input_files, action.input_delete_files, action.input_bytes, action.reason)
    log.info("plan %s: %d procedure calls (%s)", table, len(plan.actions),
             ", ".join(f"{a.kind} on {a.partition or 'the table'}" for a in plan.actions) or "nothing to do")
    for action in plan.deferred:
        log.info("%s %s %s: %s", "skipped" if action.skipped else "deferred", table, action.partition, action.reason)
    return plan.as_dict()


def tables_from_events(event_extras: list[dict[str, Any]]) -> list[str]:
    """The tables the health watch's asset events name, in order, once each."""
    named = [str((extra.get("payload") or {}).get("table", "")) for extra in event_extras if extra.get("from_trigger")]
    return list(dict.fromkeys(t for t in named if t))


def plan_jobs(tables: list[str], run_id: str, dry_run: bool,
              config: LakeopsConfig | None = None) -> tuple[list[list[str]], dict[str, str]]:
    """compact_table.py's arguments for each table whose plan has actions, and the tables whose planning
    failed with the error: one table's failure never stops the others' compaction."""
    config = config or load_config()
    jobs, failed = [], {}
    for table in tables:
        try:
            planned = plan_for(table, config)
        except Exception as e:  # noqa: BLE001 - reported by the run's last task, under the table's name
            failed[table] = f"{type(e).__name__}: {e}"
            log.exception("plan %s failed; the other tables are planned", table)
            continue
        if planned["actions"]:
            jobs.append(compact_job_args(planned["table"], planned, run_id, dry_run))
    return jobs, failed


def compact_job_args(table: str, plan: dict[str, Any], run_id: str, dry_run: bool) -> list[str]:
    """spark_jobs/compact_table.py's arguments for a table's plan (--table first: it labels the mapped task)."""
    return ["--table", table, "--plan", json.dumps(plan), "--run-id", run_id,
            "--dry-run" if dry_run else "--no-dry-run"]
