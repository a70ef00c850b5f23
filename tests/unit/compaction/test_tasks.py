"""The compact_on_health DAG's pure steps, on literal values: which tables a run plans, and the
Spark job's arguments for one plan."""

from __future__ import annotations

import json

import pytest

from lakeops.compaction.tasks import compact_job_args, tables_to_plan
from lakeops.exceptions import ConfigError

CONFIGURED = ["events", "orders", "users"]


def _event(table: str) -> dict:
    return {"from_trigger": True, "payload": {"table": table, "snapshot_id": 1, "checks": {"small_files": ["p"]}}}


def test_the_watchers_events_name_the_tables_once_each_in_order():
    extras = [_event("users"), _event("orders"), _event("users")]
    assert tables_to_plan(extras, ["events"], CONFIGURED) == ["users", "orders"]


def test_without_events_the_param_then_every_configured_table():
    assert tables_to_plan([], ["orders", "orders"], CONFIGURED) == ["orders"]
    assert tables_to_plan([], [], CONFIGURED) == CONFIGURED
    # An asset event recorded by hand (REST API, not the watcher) names no table.
    assert tables_to_plan([{"note": "manual"}], [], CONFIGURED) == CONFIGURED


def test_an_unknown_table_is_refused_with_the_configured_ones():
    with pytest.raises(ConfigError, match="table 'ordres' is not in the config file; configured tables: events, orders, users"):
        tables_to_plan([], ["ordres"], CONFIGURED)
    with pytest.raises(ConfigError, match="'gone'"):
        tables_to_plan([_event("gone")], [], CONFIGURED)


def test_job_arguments_carry_the_plan_as_json():
    plan = {"table": "lakeops.orders", "actions": [{"kind": "binpack", "partition": "created_at_day=2026-11-20"}]}
    args = compact_job_args("orders", plan, "asset_triggered__2026-11-25", dry_run=False)
    assert args[:2] == ["--table", "orders"] and args[4:] == ["--run-id", "asset_triggered__2026-11-25", "--no-dry-run"]
    assert json.loads(args[3]) == plan
    assert compact_job_args("orders", plan, "r", dry_run=True)[-1] == "--dry-run"
