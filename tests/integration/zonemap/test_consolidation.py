"""Micro -> hourly -> daily master, with reconcile, on a real Iceberg table written by Spark."""

from __future__ import annotations

import pytest
from pyiceberg import expressions as E

from lakeops.spark.zonemap_levels import spark_reader
from lakeops.zonemap.candidates import candidate_files
from lakeops.zonemap.consolidate import consolidate_day, consolidate_hour, reconcile
from lakeops.zonemap.index import index_files
from lakeops.zonemap.snapmap import micro_files, zonemap_files_for_snapshots
from tests.integration.zonemap.conftest import event_rows, hour_of

pytestmark = pytest.mark.spark


def test_micro_rolls_into_hourly_then_daily_and_reconcile_tracks_compaction(events, spark):
    snaps = [events.append(event_rows(60, seed)) for seed in range(3)]
    events.append(event_rows(60, 3), zonemap=False)  # the job died between commit and micro zonemap
    table = events.load()
    hour = hour_of(table, snaps[0])

    hourly = consolidate_hour(table, events.spec, hour, spark_reader(spark))
    committed_in_hour = sum(hour_of(table, s.snapshot_id) == hour for s in table.snapshots())
    assert hourly.status == "published" and hourly.drift.live_files == committed_in_hour
    if committed_in_hour == 4:
        assert hourly.drift.covered == 3 and hourly.drift.added == 1 and hourly.entries == 4
    assert index_files(table.location()).hourly == [hourly.path]

    daily = consolidate_day(table, events.spec, hour.date(), spark_reader(spark))
    assert daily.entries == 4 and daily.drift.stale_entries == 0
    if committed_in_hour == 4:
        assert daily.drift.covered == 4, "the hourly version already held the rebuilt entry"
    assert daily.removed_micro == 3 and micro_files(events.load()) == []
    found = candidate_files(events.load(), E.EqualTo("user_id", 100_000))
    assert found.coverage == 1.0 and found.files == []

    # A compaction rewrites every file: reconcile drops the four entries and indexes the new file.
    spark.sql(f"CALL {events.config.catalog.name}.system.rewrite_data_files(table => '{events.name}', "
              "options => map('rewrite-all', 'true'))")
    table = events.load()
    before = candidate_files(table, E.EqualTo("user_id", 100_000))
    assert before.coverage == 0.0 and len(before.files) == before.live_files >= 1
    result = reconcile(table, events.spec)
    assert result.drift.stale_entries == 4 and result.drift.added == before.live_files
    after = candidate_files(events.load(), E.EqualTo("user_id", 100_000))
    assert after.coverage == 1.0 and after.files == []

    owners = zonemap_files_for_snapshots(events.load())
    current = events.load().current_snapshot().snapshot_id
    assert current in owners[result.path] and current not in owners[daily.path]
    assert owners[daily.path], "the first master still serves the snapshots before the compaction"
