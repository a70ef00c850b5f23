"""Reconcile and damaged zonemap files: a truncated or corrupt zonemap is detected, ignored (its
files read in full), logged, and rebuilt by the next consolidation."""

from __future__ import annotations

import logging

import pytest
from pyiceberg import expressions as E

from lakeops.spark.zonemap_levels import spark_reader
from lakeops.zonemap.candidates import candidate_files
from lakeops.zonemap.consolidate import consolidate_day, consolidate_hour, reconcile
from lakeops.zonemap.index import index_files
from lakeops.zonemap.micro import micro_zonemap_uri
from lakeops.zonemap.snapmap import map_uri
from lakeops.zonemap.store import zonemap_root
from tests.integration.zonemap.conftest import event_rows, hour_of

pytestmark = pytest.mark.spark
NOBODY = E.EqualTo("user_id", 100_000)


def _truncate(table, uri, keep=40):
    with table.io.new_input(uri).open() as f:
        head = f.read()[:keep]
    with table.io.new_output(uri).create(overwrite=True) as out:
        out.write(head)


def test_a_truncated_micro_zonemap_is_read_around_then_rebuilt_by_the_hourly_run(events, spark, caplog):
    snaps = [events.append(event_rows(40, seed)) for seed in range(3)]
    table = events.load()
    _truncate(table, micro_zonemap_uri(table, snaps[1]))

    with caplog.at_level(logging.WARNING, logger="lakeops.zonemap"):
        found = candidate_files(table, NOBODY)
    assert found.unreadable_zonemaps and len(found.files) == 1, "the damaged file's data file is read, not skipped"
    assert "unreadable" in caplog.text

    result = consolidate_hour(table, events.spec, hour_of(table, snaps[1]), spark_reader(spark))
    assert [u.rsplit("/", 1)[1] for u in result.drift.unreadable] == [f"{snaps[1]}.parquet"]
    assert result.drift.added >= 1
    after = candidate_files(events.load(), NOBODY)
    assert after.files == [] and after.coverage == 1.0


def test_a_corrupt_master_and_map_are_ignored_then_rebuilt_by_the_daily_run(events):
    for seed in range(2):
        events.append(event_rows(40, seed))
    table = events.load()
    first = consolidate_day(table, events.spec, hour_of(table, table.current_snapshot().snapshot_id).date())
    assert first.removed_micro == 2 and candidate_files(table, NOBODY).files == []

    _truncate(table, first.path, keep=100)
    damaged = candidate_files(table, NOBODY)
    assert damaged.unreadable_zonemaps == [first.path] and len(damaged.files) == 2

    rebuilt = reconcile(events.load(), events.spec)
    assert rebuilt.drift.unreadable == [first.path] and rebuilt.drift.covered == 0 and rebuilt.drift.added == 2
    assert candidate_files(events.load(), NOBODY).files == []

    with events.load().io.new_output(map_uri(zonemap_root(table.location()), "daily")).create(overwrite=True) as out:
        out.write(b'{"versions": [')
    assert index_files(table.location()).master is None
    assert len(candidate_files(events.load(), NOBODY).files) == 2, "no map: nothing is pruned, nothing lost"
    again = reconcile(events.load(), events.spec)
    assert again.drift.added == 2 and candidate_files(events.load(), NOBODY).files == []
