"""The events ingest job on real local Spark and a fresh embedded catalog per test."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from lakeops.catalog import load_catalog
from lakeops.generator import generate_events
from lakeops.ingest.plan import plan_ingest
from lakeops.spark.commit import publish_staged, stage_batch
from lakeops.spark.ingest_events import run_ingest

pytestmark = pytest.mark.spark

START = datetime(2026, 11, 21, 23, 55, tzinfo=UTC)  # the second interval is past midnight: two day partitions
FIVE = timedelta(minutes=5)
REASON_OF_KIND = {
    "malformed_json": "malformed JSON",
    "wrong_type": "field user_id: expected BIGINT",
    "missing_field": "missing required field",
    "bad_timestamp": "field event_time: expected TIMESTAMP",
}


def _events(spark, config):
    return spark.table(config.qualified("events"))


def _history(spark, config, table="events"):
    return spark.sql(f"SELECT count(*) FROM {config.qualified(table)}.history").first()[0]


@pytest.fixture()
def landed(lakeops_config):
    return generate_events(lakeops_config.landing_root, START, 10, 80, seed=3, bad_fraction=0.06)


def test_two_intervals_land_every_good_row_once_and_quarantine_every_bad_line(catalog_spark, lakeops_config, landed):
    results = [run_ingest(catalog_spark, lakeops_config, "events", plan_ingest(lakeops_config, "events", s, s + FIVE))
               for s in (START, START + FIVE)]

    assert [r.status for r in results] == ["committed", "committed"]
    assert sum(r.rows for r in results) == landed.good
    assert sum(r.quarantined for r in results) == landed.bad_total > 0
    ids = [r.event_id for r in _events(catalog_spark, lakeops_config).select("event_id").collect()]
    assert len(ids) == len(set(ids)) and set(ids) == landed.good_event_ids

    reasons = [r.reason for r in catalog_spark.table(lakeops_config.qualified("events_quarantine")).select("reason").collect()]
    by_kind = Counter(next(k for k, prefix in REASON_OF_KIND.items() if reason.startswith(prefix)) for reason in reasons)
    assert by_kind == Counter({k: n for k, n in landed.bad.items() if n})

    files = catalog_spark.sql(f"SELECT partition.event_time_day FROM {lakeops_config.qualified('events')}.files")
    days = {r[0] for r in files.collect()}
    assert len(days) >= 2, "late and midnight-crossing events land in their own event-day partitions"


def test_rerun_of_a_committed_interval_appends_nothing(catalog_spark, lakeops_config, landed):
    plan = plan_ingest(lakeops_config, "events", START, START + FIVE)
    first = run_ingest(catalog_spark, lakeops_config, "events", plan)
    rows, snapshots = _events(catalog_spark, lakeops_config).count(), _history(catalog_spark, lakeops_config)

    again = run_ingest(catalog_spark, lakeops_config, "events", plan)

    assert (first.status, again.status) == ("committed", "already_committed")
    assert _events(catalog_spark, lakeops_config).count() == rows == first.rows
    assert _history(catalog_spark, lakeops_config) == snapshots
    assert catalog_spark.table(lakeops_config.qualified("events_quarantine")).count() == first.quarantined


def test_interval_with_no_files_is_a_no_op(catalog_spark, lakeops_config, landed):
    empty = START - timedelta(hours=3)
    result = run_ingest(catalog_spark, lakeops_config, "events", plan_ingest(lakeops_config, "events", empty, empty + FIVE))
    assert (result.status, result.files, result.rows) == ("no_input", 0, 0)


def test_crash_after_staging_before_publish_loses_and_duplicates_nothing(catalog_spark, lakeops_config, landed):
    plan = plan_ingest(lakeops_config, "events", START, START + FIVE)
    run_ingest(catalog_spark, lakeops_config, "events", plan_ingest(lakeops_config, "events", START + FIVE, START + 2 * FIVE))
    before = _events(catalog_spark, lakeops_config).count()
    # A run that died after writing its data files and staging the snapshot, before publishing it:
    stage_batch(catalog_spark, load_catalog(lakeops_config.catalog),
                catalog_spark.table(lakeops_config.qualified("events")).limit(7), plan.table, plan.batch_id, {})
    assert _events(catalog_spark, lakeops_config).count() == before, "a staged snapshot is invisible to readers"

    retry = run_ingest(catalog_spark, lakeops_config, "events", plan)

    assert retry.status == "committed"
    assert _events(catalog_spark, lakeops_config).count() == before + retry.rows
    ids = {r.event_id for r in _events(catalog_spark, lakeops_config).select("event_id").collect()}
    assert ids == landed.good_event_ids


def test_two_racing_runs_of_one_batch_publish_it_once(catalog_spark, lakeops_config, landed):
    run_ingest(catalog_spark, lakeops_config, "events", plan_ingest(lakeops_config, "events", START, START + FIVE))
    table, batch = lakeops_config.qualified("events"), "events@race"
    rows = catalog_spark.table(table).limit(5)
    before = catalog_spark.table(table).count()
    # Both runs passed the "already published?" check and staged their snapshots; then both publish.
    catalog = load_catalog(lakeops_config.catalog)
    first = stage_batch(catalog_spark, catalog, rows, table, batch, {})
    second = stage_batch(catalog_spark, catalog, rows, table, batch, {})

    assert publish_staged(catalog_spark, catalog, table, batch, first) is not None
    assert publish_staged(catalog_spark, catalog, table, batch, second) is None
    assert catalog_spark.table(table).count() == before + 5


def test_committed_batch_is_readable_by_pyiceberg_with_its_run_identity(catalog_spark, lakeops_config, landed):
    result = run_ingest(catalog_spark, lakeops_config, "events", plan_ingest(lakeops_config, "events", START, START + FIVE))
    table = load_catalog(lakeops_config.catalog).load_table("lakeops.events")
    summary = table.current_snapshot().summary
    assert summary["lakeops.batch-id"] == result.batch_id == "lakeops.events@20261121T235500Z-20261122T000000Z"
    assert int(summary["lakeops.rows"]) == result.rows == table.scan().to_arrow().num_rows
    sort_order = table.sort_order()
    assert [table.schema().find_field(f.source_id).name for f in sort_order.fields] == ["event_time"]
