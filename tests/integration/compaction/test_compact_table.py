"""The compaction runner on a CDC table with real delete files: the planned partition's files and
delete files drop, every row stays, the in-flight marker is gone afterwards, and the result names
before/after figures."""

from __future__ import annotations

import pytest

from lakeops.catalog import load_catalog
from lakeops.compaction.plan import REMOVE_DANGLING, REWRITE_DATA, REWRITE_DELETES
from lakeops.compaction.serde import plan_from_json
from lakeops.inflight import read_markers
from lakeops.spark.compact_table import run_compaction

from .conftest import health_and_plan, keys, land_and_merge

pytestmark = pytest.mark.spark


# day(created_at) and bucket(8, user_id) partition predicates; the replaced files' deletes left dangling, or dropped at once
@pytest.mark.parametrize(("table", "max_dangling"), [("orders", 100), ("users", 0)])
def test_compaction_folds_the_deletes_of_the_planned_partitions_and_keeps_every_row(catalog_spark, lakeops_config, table,
                                                                                    max_dangling):
    stats = land_and_merge(catalog_spark, lakeops_config, table, 2, per_minute=40)
    before_keys = keys(catalog_spark, lakeops_config, table)
    assert before_keys == sorted(stats.live[table])
    _, plan, loaded = health_and_plan(lakeops_config, table, delete_ratio_threshold=0.01, min_fragment_files=2,
                                      max_dangling_delete_files=max_dangling)
    assert plan.actions and {a.kind for a in plan.actions} <= {REWRITE_DATA, REWRITE_DELETES, REMOVE_DANGLING}
    assert (REMOVE_DANGLING in {a.kind for a in plan.actions}) == (max_dangling == 0)
    plan = plan_from_json(__import__("json").dumps(plan.as_dict()))  # the way the DAG hands it over

    result = run_compaction(catalog_spark, lakeops_config, table, plan, "test-run")

    assert result["status"] == "done", [(a["status"], a["error"], a["conflicts"]) for a in result["actions"]]
    before, after = result["before"], result["after"]
    assert before["applied_delete_files"] > 0 and after["applied_delete_files"] < before["applied_delete_files"]
    if max_dangling:  # readers skip the deletes of the replaced files; they stay until 100 pile up
        assert after["dangling_delete_files"] > 0
    else:
        assert after["dangling_delete_files"] == 0 and after["delete_files"] < before["delete_files"]
    assert after["data_files"] < before["data_files"]
    assert after["read_amp_files"] < before["read_amp_files"]
    assert keys(catalog_spark, lakeops_config, table) == before_keys
    assert read_markers(loaded.location()) == []
    print(f"{table} compaction:", {k: (before[k], after[k]) for k in before}, result["duration_s"], "s")


def test_dry_run_changes_nothing(catalog_spark, lakeops_config):
    land_and_merge(catalog_spark, lakeops_config, "users", 2, per_minute=30)
    _, plan, loaded = health_and_plan(lakeops_config, "users", delete_ratio_threshold=0.01)
    snapshot = loaded.current_snapshot().snapshot_id

    result = run_compaction(catalog_spark, lakeops_config, "users", plan, "dry", dry_run=True)

    assert result["status"] == "dry_run" and len(result["actions"]) == len(plan.actions) > 0
    users = load_catalog(lakeops_config.catalog).load_table(lakeops_config.identifier("users"))
    assert users.current_snapshot().snapshot_id == snapshot
