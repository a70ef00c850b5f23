"""Compaction racing CDC MERGEs on the same table and partitions: no delete is lost, no live row is
lost, and the conflict is visible in the results (Iceberg refuses the conflicting commit; the loser
retries on the new state or reports the group it left out)."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from lakeops.catalog import load_catalog
from lakeops.compaction.plan import plan_table
from lakeops.health.compute import compute_health
from lakeops.ingest.plan import plan_ingest
from lakeops.spark.compact_table import run_compaction
from lakeops.spark.ingest_cdc import run_cdc_ingest
from tests.conftest import register_catalog

from .conftest import FIVE, START, keys, land_and_merge

pytestmark = pytest.mark.spark


def _force_plan(config, table):
    """Rewrite every partition holding deletes (ratio threshold at 1%)."""
    spec = config.table(table)
    policy = dataclasses.replace(spec.compaction, delete_ratio_threshold=0.01, min_fragment_files=2)
    loaded = load_catalog(config.catalog).load_table(config.identifier(table))
    return plan_table(compute_health(loaded, policy), policy)


def _rows(spark, config, table):
    return sorted(tuple(r) for r in spark.table(config.qualified(table)).collect())


def test_a_merge_staged_before_a_compaction_is_merged_again_not_lost(catalog_spark, lakeops_config):
    from lakeops.spark.merge_commit import _stage_merge

    stats = land_and_merge(catalog_spark, lakeops_config, "orders", 3, per_minute=30, merge=2)
    catalog = load_catalog(lakeops_config.catalog)
    plan = plan_ingest(lakeops_config, "orders", START + 2 * FIVE, START + 3 * FIVE)
    # A run of interval 3 staged its MERGE on the pre-compaction snapshot and has not published yet.
    staged = _stage_merge(catalog_spark, catalog, plan.table, f"DELETE FROM {plan.table} WHERE order_id % 2 = 0",
                          plan.batch_id, {})
    compacted = run_compaction(catalog_spark, lakeops_config, "orders", _force_plan(lakeops_config, "orders"), "race-1")
    assert compacted["status"] == "done"
    assert compacted["after"]["applied_delete_files"] < compacted["before"]["applied_delete_files"]

    with pytest.raises(Exception, match="fast-forward"):  # Iceberg refuses to publish it over the compaction
        catalog_spark.sql(f"CALL {lakeops_config.catalog.name}.system.cherrypick_snapshot("
                          f"table => '{plan.table}', snapshot_id => {staged})")
    result = run_cdc_ingest(catalog_spark, lakeops_config, "orders", plan)  # the retry merges on the new state

    assert result.status == "committed"
    assert keys(catalog_spark, lakeops_config, "orders") == sorted(stats.live["orders"])


def test_compaction_and_merges_running_at_once_lose_nothing(spark, catalog_spark, lakeops_config):
    stats = land_and_merge(catalog_spark, lakeops_config, "orders", 5, per_minute=30, merge=2)
    compaction_session = register_catalog(spark.newSession(), lakeops_config)  # own SQL conf: no shared spark.wap.id
    plan = _force_plan(lakeops_config, "orders")
    outcome: dict = {}

    def compact() -> None:
        outcome["compaction"] = run_compaction(compaction_session, lakeops_config, "orders", plan, "race-2")

    worker = threading.Thread(target=compact)
    worker.start()
    merges = [run_cdc_ingest(catalog_spark, lakeops_config, "orders",
                             plan_ingest(lakeops_config, "orders", START + i * FIVE, START + (i + 1) * FIVE))
              for i in (2, 3, 4)]
    worker.join(timeout=400)
    compaction = outcome["compaction"]

    assert [m.status for m in merges] == ["committed"] * 3
    assert keys(catalog_spark, lakeops_config, "orders") == sorted(stats.live["orders"]), \
        "deleted keys stay deleted, live keys survive"
    merge_retries = sum(m.attempts - 1 for m in merges)
    print(f"race: compaction {compaction['status']} with {compaction['conflicts']} conflicts "
          f"({[a['conflicts'] for a in compaction['actions']]}); MERGE retries {merge_retries}")
    # Whichever side lost a commit says so; a run where both finished clean did not overlap.
    for action in compaction["actions"]:
        assert action["status"] in ("done", "partial", "failed")
        if action["status"] != "done":
            assert action["conflicts"], action


def test_a_call_that_lost_to_a_merge_is_retried_with_partial_progress_and_loses_nothing(spark, catalog_spark,
                                                                                        lakeops_config):
    """Deterministic: the compaction session's catalog caches the table (Iceberg's SparkCatalog
    default), so its first attempt plans on the snapshot it cached before a CDC MERGE committed,
    exactly as if the MERGE had landed while the call was rewriting; Iceberg refuses its commit."""
    stats = land_and_merge(catalog_spark, lakeops_config, "orders", 3, per_minute=30, merge=2)
    compaction_session = register_catalog(spark.newSession(), lakeops_config)
    compaction_session.table(lakeops_config.qualified("orders")).count()  # caches the table at this snapshot
    plan = _force_plan(lakeops_config, "orders")
    merge = run_cdc_ingest(catalog_spark, lakeops_config, "orders",
                           plan_ingest(lakeops_config, "orders", START + 2 * FIVE, START + 3 * FIVE))
    assert merge.status == "committed"

    result = run_compaction(compaction_session, lakeops_config, "orders", plan, "race-3")

    [action] = [a for a in result["actions"] if a["kind"] == "rewrite_data_files"]
    print(f"race-3: {action['status']} after {action['attempts']} attempts: {action['conflicts']}")
    assert action["conflicts"][0].startswith("attempt 1: the commit conflicted with a concurrent one"), action
    assert (action["status"], action["attempts"]) == ("done", 2), action
    assert result["after"]["applied_delete_files"] < result["before"]["applied_delete_files"]
    assert keys(catalog_spark, lakeops_config, "orders") == sorted(stats.live["orders"]), "deleted keys stay deleted"
