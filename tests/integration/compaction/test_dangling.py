"""Dropping dangling delete files (lakeops.spark.dangling) on a real CDC table: exactly the files
health calls dangling go, in one commit and without a Spark job; every row stays; and Iceberg
refuses a drop whose files a concurrent commit removed first."""

from __future__ import annotations

import dataclasses

import pytest

from lakeops.catalog import load_catalog
from lakeops.compaction.plan import REMOVE_DANGLING
from lakeops.health.compute import dangling_delete_paths
from lakeops.spark.compact_table import run_compaction
from lakeops.spark.dangling import live_delete_files

from .conftest import health_and_plan, keys, land_and_merge

pytestmark = pytest.mark.spark


def _left_dangling(spark, config, table: str):
    """Merge CDC changes, then compact without dropping: the replaced files' delete files dangle."""
    land_and_merge(spark, config, table, 2, per_minute=40)
    _, plan, _ = health_and_plan(config, table, delete_ratio_threshold=0.01, min_fragment_files=2,
                                 max_dangling_delete_files=10_000)
    assert run_compaction(spark, config, table, plan, "fold")["status"] == "done"


def test_a_run_drops_exactly_the_dangling_delete_files_in_one_commit_without_a_spark_job(catalog_spark, lakeops_config):
    _left_dangling(catalog_spark, lakeops_config, "orders")
    before_keys = keys(catalog_spark, lakeops_config, "orders")
    health, plan, loaded = health_and_plan(lakeops_config, "orders", max_dangling_delete_files=1)
    snapshot, dangling = dangling_delete_paths(loaded)
    assert snapshot == health.snapshot_id and len(dangling) == health.dangling_delete_files > 0
    [drop] = [a for a in plan.actions if a.kind == REMOVE_DANGLING]
    snapshots_before = len(loaded.metadata.snapshots)

    catalog_spark.sparkContext.setJobGroup("lakeops-dangling-test", "drop dangling delete files")
    try:
        result = run_compaction(catalog_spark, lakeops_config, "orders", dataclasses.replace(plan, actions=(drop,)), "drop")
        jobs = list(catalog_spark.sparkContext.statusTracker().getJobIdsForGroup("lakeops-dangling-test"))
    finally:
        catalog_spark.sparkContext.setJobGroup("", "")

    [outcome] = result["actions"]
    assert outcome["status"] == "done" and outcome["outputs"]["removed_delete_files_count"] == len(dangling)
    assert jobs == []
    after = result["after"]
    assert after["dangling_delete_files"] == 0
    assert after["delete_files"] == result["before"]["delete_files"] - len(dangling)
    assert after["applied_delete_files"] == result["before"]["applied_delete_files"]
    reloaded = load_catalog(lakeops_config.catalog).load_table(lakeops_config.identifier("orders"))
    assert len(reloaded.metadata.snapshots) == snapshots_before + 1
    assert reloaded.current_snapshot().summary["removed-delete-files"] == str(len(dangling))
    live_deletes = set(reloaded.inspect.delete_files().column("file_path").to_pylist())
    assert not live_deletes & dangling and dangling_delete_paths(reloaded)[1] == frozenset()
    assert keys(catalog_spark, lakeops_config, "orders") == before_keys


def test_iceberg_refuses_a_drop_whose_files_a_concurrent_commit_removed(catalog_spark, lakeops_config):
    _left_dangling(catalog_spark, lakeops_config, "users")
    before_keys = keys(catalog_spark, lakeops_config, "users")
    loaded = load_catalog(lakeops_config.catalog).load_table(lakeops_config.identifier("users"))
    _, dangling = dangling_delete_paths(loaded)
    jtable = catalog_spark._jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(
        catalog_spark._jsparkSession, lakeops_config.qualified("users"))
    stale = jtable.newRewrite()
    found = live_delete_files(catalog_spark, jtable, dangling)
    assert len(found) == len(dangling) > 0
    for delete_file in found:
        stale.deleteFile(delete_file)
    _, plan, _ = health_and_plan(lakeops_config, "users", max_dangling_delete_files=1)
    [drop] = [a for a in plan.actions if a.kind == REMOVE_DANGLING]
    assert run_compaction(catalog_spark, lakeops_config, "users", dataclasses.replace(plan, actions=(drop,)),
                          "first")["status"] == "done"

    with pytest.raises(Exception, match="Missing required files to delete"):
        stale.commit()
    assert keys(catalog_spark, lakeops_config, "users") == before_keys
