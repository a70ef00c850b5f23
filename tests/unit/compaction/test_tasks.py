"""The compaction DAGs' steps around the planner: which tables the watcher's events name, the Spark job's
arguments for one plan, and planning many tables where one fails (a real SQLite-backed catalog)."""

from __future__ import annotations

import json

import pyarrow as pa

from lakeops.catalog import load_catalog
from lakeops.compaction.tasks import compact_job_args, plan_jobs, tables_from_events


def _event(table: str) -> dict:
    return {"from_trigger": True, "payload": {"table": table, "snapshot_id": 1, "checks": {"small_files": ["p"]}}}


def test_the_watchers_events_name_the_tables_once_each_in_order():
    assert tables_from_events([_event("lakeops.users"), _event("lakeops.orders"), _event("lakeops.users")]) == [
        "lakeops.users", "lakeops.orders"]
    # An asset event recorded by hand (REST API, not the watcher) names no table.
    assert tables_from_events([{"note": "manual"}]) == []


def test_job_arguments_carry_the_plan_as_json_and_start_with_the_table():
    plan = {"table": "lakeops.orders", "actions": [{"kind": "binpack", "partition": "created_at_day=2026-11-20"}]}
    args = compact_job_args("lakeops.orders", plan, "asset_triggered__2026-11-25", dry_run=False)
    assert args[:2] == ["--table", "lakeops.orders"] and args[4:] == ["--run-id", "asset_triggered__2026-11-25", "--no-dry-run"]
    assert json.loads(args[3]) == plan
    assert compact_job_args("lakeops.orders", plan, "r", dry_run=True)[-1] == "--dry-run"


def test_one_table_that_cannot_be_planned_does_not_stop_the_others(make_config):
    config = make_config({"tables": {"a.fragmented": {"compaction": {"min_fragment_files": 2}}, "a.missing": {},
                                     "a.clean": {}}})
    catalog = load_catalog(config.catalog)
    catalog.create_namespace("a")
    schema = pa.schema([("id", pa.int64())])
    fragmented = catalog.create_table("a.fragmented", schema=schema)
    for i in range(3):
        fragmented.append(pa.table({"id": [i]}))
    catalog.create_table("a.clean", schema=schema).append(pa.table({"id": [1]}))
    jobs, failed = plan_jobs(["a.fragmented", "a.missing", "a.clean"], "run-1", False, config)
    assert [job[1] for job in jobs] == ["a.fragmented"]
    assert list(failed) == ["a.missing"] and "NoSuchTableError" in failed["a.missing"]
