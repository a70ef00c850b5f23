"""What the compaction DAG's Python tasks call: metadata only (pyiceberg), no Spark."""

from __future__ import annotations

import json
import logging
from typing import Any

from lakeops.compaction.plan import plan_configured
from lakeops.config import LakeopsConfig, load_config
from lakeops.exceptions import ConfigError

log = logging.getLogger(__name__)


def plan_for(table: str, config: LakeopsConfig | None = None) -> dict[str, Any]:
    """The compaction plan of a configured table as JSON-ready data (CompactionPlan.as_dict())."""
    from lakeops.health.compute import table_health

    config = config or load_config()
    plan = plan_configured(table_health(config, table), config.table(table))
    for action in plan.selected:
        log.info("plan %s %s: %s (%d files, %d delete files, %d bytes) because %s", table, action.partition or "(table)",
                 action.kind, action.input_files, action.input_delete_files, action.input_bytes, action.reason)
    log.info("plan %s: %d procedure calls (%s)", table, len(plan.actions),
             ", ".join(f"{a.kind} on {a.partition or 'the table'}" for a in plan.actions) or "nothing to do")
    for action in plan.deferred:
        log.info("%s %s %s: %s", "skipped" if action.skipped else "deferred", table, action.partition, action.reason)
    return plan.as_dict()


def tables_to_plan(event_extras: list[dict[str, Any]], requested: list[str], configured: list[str]) -> list[str]:
    """The tables a compact_on_health run plans: those the watcher's asset events name (in order,
    once each), else those the run's `tables` param requests, else every configured table. A name
    not in the config is refused with the configured ones listed."""
    named = [str((extra.get("payload") or {}).get("table", "")) for extra in event_extras if extra.get("from_trigger")]
    tables = list(dict.fromkeys(t for t in named if t)) or list(dict.fromkeys(requested)) or list(configured)
    unknown = [t for t in tables if t not in configured]
    if unknown:
        raise ConfigError(f"table {unknown[0]!r} is not in the config file; configured tables: {', '.join(configured) or 'none'}")
    return tables


def compact_job_args(table: str, plan: dict[str, Any], run_id: str, dry_run: bool) -> list[str]:
    """spark_jobs/compact_table.py's arguments for a configured table's plan."""
    return ["--table", table, "--plan", json.dumps(plan), "--run-id", run_id,
            "--dry-run" if dry_run else "--no-dry-run"]
