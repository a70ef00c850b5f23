"""Freshness SLA: the age of a table's last commit against its SLA, read from a real pyiceberg
SqlCatalog (metadata only)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pyarrow as pa

from lakeops.alerts.freshness import check_freshness, evaluate_freshness
from lakeops.catalog import load_catalog
from tests.conftest import make_test_config

NOW = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


def test_evaluate_freshness_against_literal_values():
    fresh = evaluate_freshness("events", NOW - timedelta(minutes=19), 20, NOW)
    assert (fresh.breached, fresh.age_seconds, fresh.late_seconds) == (False, 1140, 0)
    stale = evaluate_freshness("events", NOW - timedelta(minutes=25), 20, NOW)
    assert (stale.breached, stale.late_seconds) == (True, 300)
    never = evaluate_freshness("events", None, 20, NOW)
    assert never.breached and never.age_seconds is None


def test_check_freshness_reads_the_last_commit_from_metadata(tmp_path):
    config = make_test_config(tmp_path, tables={
        "events": {"freshness_sla_minutes": 20},
        "users": {"ingest": {"format": "cdc"}, "key": ["user_id"], "freshness_sla_minutes": 20}})
    catalog = load_catalog(config.catalog)
    catalog.create_namespace(config.catalog.namespace)
    table = catalog.create_table(config.identifier("events"), schema=pa.schema([("id", pa.int64())]))
    table.append(pa.table({"id": [1, 2, 3]}))
    committed = datetime.fromtimestamp(table.current_snapshot().timestamp_ms / 1000, tz=UTC)

    statuses = {s.table: s for s in check_freshness(catalog, config, committed + timedelta(minutes=5))}
    assert statuses["lakeops.events"].last_commit == committed and not statuses["lakeops.events"].breached
    assert statuses["lakeops.users"].last_commit is None and statuses["lakeops.users"].breached  # never created

    later = {s.table: s for s in check_freshness(catalog, config, committed + timedelta(minutes=31), ["events"])}
    assert list(later) == ["lakeops.events"] and later["lakeops.events"].breached
    assert later["lakeops.events"].late_seconds == 660


def test_a_table_property_sets_the_freshness_sla(tmp_path):
    config = make_test_config(tmp_path, tables={"events": {}})
    catalog = load_catalog(config.catalog)
    catalog.create_namespace(config.catalog.namespace)
    table = catalog.create_table(config.identifier("events"), schema=pa.schema([("id", pa.int64())]),
                                 properties={"lakeops.freshness-sla-minutes": "5"})
    table.append(pa.table({"id": [1]}))
    committed = datetime.fromtimestamp(table.current_snapshot().timestamp_ms / 1000, tz=UTC)
    [status] = check_freshness(catalog, config, committed + timedelta(minutes=6))
    assert status.sla_minutes == 5 and status.breached
