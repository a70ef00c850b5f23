"""One compaction run on one table: record health, hold an in-flight marker so snapshot expiry keeps
the starting snapshot, run the planned actions, record health again, reconcile the zonemaps."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from lakeops.catalog import load_catalog
from lakeops.compaction.plan import REMOVE_DANGLING, REWRITE_DATA, CompactionPlan
from lakeops.compaction.serde import health_figures
from lakeops.config import LakeopsConfig
from lakeops.health.compute import compute_health
from lakeops.inflight import inflight
from lakeops.spark.compact import run_action
from lakeops.spark.dangling import remove_dangling_deletes
from lakeops.tables.effective import load_effective

if TYPE_CHECKING:
    from pyiceberg.table import Table
    from pyspark.sql import SparkSession

    from lakeops.config import TableConfig

log = logging.getLogger(__name__)


def reconcile_zonemap(loaded: Table, spec: TableConfig) -> dict[str, Any]:
    """Bring the zonemap index to the compacted snapshot: entries of rewritten files go, new files
    get entries. A failure costs pruning, never rows (unindexed live files are always read)."""
    from lakeops.zonemap.consolidate import reconcile

    if not spec.zonemap.columns:
        return {"status": "no_zonemap"}
    try:
        return reconcile(loaded, spec).as_dict()
    except Exception as e:
        log.exception("zonemap reconcile of %s failed; rewritten files stay unindexed (read, never skipped)", spec.name)
        return {"status": "failed", "error": str(e).splitlines()[0][:300]}


def run_compaction(spark: SparkSession, config: LakeopsConfig, table: str, plan: CompactionPlan, run_id: str,
                   *, dry_run: bool = False, attempts: int = 3) -> dict[str, Any]:
    catalog = load_catalog(config.catalog)
    spec, loaded = load_effective(config, catalog, table)
    identifier = spec.name
    before = health_figures(compute_health(loaded, spec.compaction))
    result: dict[str, Any] = {"table": spec.name, "run_id": run_id, "dry_run": dry_run, "before": before,
                              "deferred": [{"partition": a.partition, "reason": a.reason, "skipped": a.skipped}
                                           for a in plan.deferred]}
    current = loaded.current_snapshot()
    if dry_run or not plan.actions or current is None:
        result.update(status="dry_run" if dry_run else "nothing_to_do",
                      actions=[{"kind": a.kind, "partition": a.partition, "reason": a.reason, "sql_where": a.where}
                               for a in plan.actions])
        return result
    started = time.monotonic()
    snapshot_id = current.snapshot_id
    log.info("compacting %s from snapshot %s: %d actions (%d MB planned, %d partitions deferred)", identifier, snapshot_id,
             len(plan.actions), plan.planned_bytes // (1024 * 1024), len(plan.deferred))
    qualified = config.qualified(spec.name)
    with inflight(loaded.location(), "compaction", run_id, snapshot_id):
        outcomes = [remove_dangling_deletes(spark, catalog, identifier, qualified, action, attempts)
                    if action.kind == REMOVE_DANGLING else run_action(spark, config.catalog.name, qualified, action, attempts)
                    for action in plan.actions]
    loaded = catalog.load_table(identifier)
    after = health_figures(compute_health(loaded, spec.compaction))
    rewrote_data = any(o.kind == REWRITE_DATA and o.outputs.get("added_data_files_count") for o in outcomes)
    statuses = {o.status for o in outcomes}
    result.update(
        status="done" if statuses == {"done"} else ("failed" if statuses == {"failed"} else "partial"),
        actions=[o.as_dict() for o in outcomes],
        conflicts=sum(len(o.conflicts) for o in outcomes),
        after=after,
        zonemap=reconcile_zonemap(loaded, spec) if rewrote_data else {"status": "unchanged"},
        duration_s=round(time.monotonic() - started, 2),
    )
    log.info("compacted %s: data files %d -> %d, applied delete files %d -> %d (%d dangling after), read amplification "
             "%.2f -> %.2f in %.1f s (%s)", identifier, before["data_files"], after["data_files"],
             before["applied_delete_files"], after["applied_delete_files"], after["dangling_delete_files"],
             before["read_amp_files"], after["read_amp_files"], result["duration_s"], result["status"])
    return result
