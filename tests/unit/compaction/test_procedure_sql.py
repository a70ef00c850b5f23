"""The CALL statements the runner issues, and the plan's JSON round trip, against literal values."""

from __future__ import annotations

import json

from lakeops.compaction.plan import REWRITE_DATA, REWRITE_DELETES, REWRITE_MANIFESTS, CompactionAction, CompactionPlan
from lakeops.compaction.serde import plan_from_json
from lakeops.spark.compact import procedure_sql

WHERE = "(created_at >= TIMESTAMP '2026-11-21 00:00:00' AND created_at < TIMESTAMP '2026-11-22 00:00:00')"


def test_data_rewrite_call_scopes_the_partition_and_passes_the_options():
    action = CompactionAction(REWRITE_DATA, "created_at_day=2026-11-21", WHERE, "why", strategy="sort",
                              sort_order="zorder(user_id, country)",
                              options={"partial-progress.enabled": "true", "delete-file-threshold": "10"})
    assert procedure_sql("lakeops", "lakeops.lakeops.orders", action) == (
        "CALL lakeops.system.rewrite_data_files(table => 'lakeops.lakeops.orders', strategy => 'sort', "
        "sort_order => 'zorder(user_id, country)', "
        "options => map('delete-file-threshold', '10', 'partial-progress.enabled', 'true'), "
        "where => '(created_at >= TIMESTAMP \\'2026-11-21 00:00:00\\' AND created_at < TIMESTAMP \\'2026-11-22 00:00:00\\')')")


def test_a_retry_after_a_conflict_uses_the_retry_options():
    action = CompactionAction(REWRITE_DATA, "p", None, "why", strategy="binpack", options={"min-input-files": "1"},
                              retry_options={"min-input-files": "1", "partial-progress.enabled": "true"})
    assert procedure_sql("c", "c.n.t", action) == (
        "CALL c.system.rewrite_data_files(table => 'c.n.t', strategy => 'binpack', options => map('min-input-files', '1'))")
    assert procedure_sql("c", "c.n.t", action, retry=True) == (
        "CALL c.system.rewrite_data_files(table => 'c.n.t', strategy => 'binpack', "
        "options => map('min-input-files', '1', 'partial-progress.enabled', 'true'))")
    no_retry_options = CompactionAction(REWRITE_DATA, "p", None, "why", strategy="binpack", options={"a": "b"})
    assert procedure_sql("c", "c.n.t", no_retry_options, retry=True) == procedure_sql("c", "c.n.t", no_retry_options)


def test_delete_and_manifest_rewrites():
    deletes = CompactionAction(REWRITE_DELETES, "p", "system.bucket(8, user_id) = 3", "why", options={"rewrite-all": "true"},
                               retry_options={"rewrite-all": "true", "partial-progress.enabled": "true"})
    assert procedure_sql("c", "c.n.users", deletes) == (
        "CALL c.system.rewrite_position_delete_files(table => 'c.n.users', where => 'system.bucket(8, user_id) = 3', "
        "options => map('rewrite-all', 'true'))")
    assert procedure_sql("c", "c.n.users", deletes, retry=True) == (
        "CALL c.system.rewrite_position_delete_files(table => 'c.n.users', where => 'system.bucket(8, user_id) = 3', "
        "options => map('partial-progress.enabled', 'true', 'rewrite-all', 'true'))")
    assert procedure_sql("c", "c.n.users", CompactionAction(REWRITE_MANIFESTS, "", None, "why")) == (
        "CALL c.system.rewrite_manifests(table => 'c.n.users')")


def test_plan_survives_the_json_hand_over():
    plan = CompactionPlan("lakeops.orders", (CompactionAction(REWRITE_DATA, "p", WHERE, "why", strategy="binpack",
                                                               input_files=3, options={"a": "b"},
                                                               retry_options={"a": "b", "c": "d"}),),
                          (CompactionAction(REWRITE_DELETES, "q", None, "budget"),), 1024)
    assert plan_from_json(json.dumps(plan.as_dict())) == plan
