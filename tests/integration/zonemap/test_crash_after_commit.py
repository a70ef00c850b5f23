"""A crash between an ingest commit and its micro zonemap loses no rows: the batch's file is read
(never skipped) until a consolidation's reconcile indexes it, and then it prunes like any other."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pyiceberg import expressions as E

import lakeops.zonemap.micro
from lakeops.catalog import load_catalog
from lakeops.generator import generate_events
from lakeops.ingest.plan import plan_ingest
from lakeops.spark.ingest_events import run_ingest
from lakeops.zonemap.build import added_data_files
from lakeops.zonemap.candidates import candidate_files
from lakeops.zonemap.consolidate import consolidate_hour
from lakeops.zonemap.micro import micro_zonemap_uri
from lakeops.zonemap.reads import read_pruned_arrow
from tests.conftest import make_test_config, register_catalog

pytestmark = pytest.mark.spark
START = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
ONE = timedelta(minutes=1)


def test_a_batch_whose_zonemap_write_crashed_is_read_until_reconcile_covers_it(spark, tmp_path, monkeypatch):
    config = make_test_config(tmp_path)
    register_catalog(spark, config)
    generate_events(config.landing_root, START, 3, 80, seed=9, users=200)

    def ingest(i):
        return run_ingest(spark, config, "events", plan_ingest(config, "events", START + i * ONE, START + (i + 1) * ONE))

    ingest(0)

    def crash(*args, **kwargs):
        raise OSError("the process died before the micro zonemap was written")

    monkeypatch.setattr(lakeops.zonemap.micro, "write_micro_zonemap", crash)
    crashed = ingest(1)
    monkeypatch.undo()
    ingest(2)
    table = load_catalog(config.catalog).load_table(config.identifier("events"))
    assert crashed.status == "committed" and not table.io.new_input(micro_zonemap_uri(table, crashed.snapshot_id)).exists()

    crashed_file = added_data_files(table, crashed.snapshot_id)[0].file_path
    user = table.scan(selected_fields=("user_id",)).to_arrow().column("user_id").to_pylist()[0]
    for predicate in (E.EqualTo("user_id", user), E.EqualTo("user_id", -1)):
        found = candidate_files(table, predicate)
        assert crashed_file in found.files and found.coverage < 1.0, "an unindexed file is always read"
        full = sorted(table.scan(row_filter=predicate).to_arrow().column("event_id").to_pylist())
        assert sorted(read_pruned_arrow(table, predicate).rows.column("event_id").to_pylist()) == full

    hour = datetime.fromtimestamp(table.snapshot_by_id(crashed.snapshot_id).timestamp_ms // 3_600_000 * 3600, tz=UTC)
    result = consolidate_hour(table, config.table("events"), hour)
    assert result.drift.added >= 1
    covered = candidate_files(table, E.EqualTo("user_id", -1))
    if all(_hour(table, s.snapshot_id) == hour for s in table.snapshots()):
        assert covered.coverage == 1.0 and covered.files == [], "reconcile indexed the file: it now prunes"
    assert crashed_file not in covered.files

    rerun = ingest(1)  # a rerun of the crashed interval finds it published and writes the missing micro zonemap
    assert rerun.status == "already_committed"
    assert table.io.new_input(micro_zonemap_uri(table, crashed.snapshot_id)).exists()


def _hour(table, snapshot_id):
    return datetime.fromtimestamp(table.snapshot_by_id(snapshot_id).timestamp_ms // 3_600_000 * 3600, tz=UTC)
