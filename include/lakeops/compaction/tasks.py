"""What the compaction DAG's Python tasks call: metadata only (pyiceberg), no Spark."""

from __future__ import annotations

import logging
from typing import Any

from lakeops.compaction.plan import plan_table
from lakeops.config import load_config

log = logging.getLogger(__name__)


def plan_for(table: str) -> dict[str, Any]:
    """The compaction plan of a configured table as JSON-ready data (CompactionPlan.as_dict())."""
    from lakeops.health.compute import table_health

    config = load_config()
    spec = config.table(table)
    plan = plan_table(table_health(config, table), spec.compaction, partition_by=spec.partition_by,
                      sort_columns=spec.zonemap.columns)
    for action in plan.selected:
        log.info("plan %s %s: %s (%d files, %d delete files, %d bytes) because %s", table, action.partition or "(table)",
                 action.kind, action.input_files, action.input_delete_files, action.input_bytes, action.reason)
    log.info("plan %s: %d procedure calls (%s)", table, len(plan.actions),
             ", ".join(f"{a.kind} on {a.partition or 'the table'}" for a in plan.actions) or "nothing to do")
    for action in plan.deferred:
        log.info("deferred %s %s: %s", table, action.partition, action.reason)
    return plan.as_dict()
