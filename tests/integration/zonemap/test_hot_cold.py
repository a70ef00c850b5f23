"""Hot/cold routing: recent commits are decided from micro entries in memory, older ones from the
daily master's statistics (held while they fit the bound) and its Bloom filters read from disk; a
tiny memory bound only costs re-reads, never rows."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pyiceberg import expressions as E

from lakeops.zonemap.candidates import candidate_files
from lakeops.zonemap.consolidate import consolidate_day
from lakeops.zonemap.hot import HOT, hot_stats
from lakeops.zonemap.reads import read_pruned_arrow
from tests.integration.zonemap.conftest import T0, commit_day, event_rows

pytestmark = pytest.mark.spark
OLD = T0 - timedelta(days=3)


def test_recent_ranges_come_from_memory_and_old_ones_from_the_master_on_disk(events):
    for seed in range(2):
        events.append(event_rows(40, seed, start=OLD))
    table = events.load()
    consolidate_day(table, events.spec, commit_day(table))
    recent = [events.append(event_rows(40, 10 + seed, start=T0)) for seed in range(2)]
    HOT.clear()

    found = candidate_files(events.load(), E.GreaterThanOrEqual("event_time", T0.isoformat()), hot_memory_mb=64)
    assert found.live_files == 4 and found.hot_files == 2 and found.coverage == 1.0
    assert len(found.files) == 2, "the two old files are ruled out by the master's statistics"
    assert found.replayed_snapshots == 2 and not found.full_listing, "planned from the master plus two snapshots"
    assert hot_stats().files == 3 and hot_stats().misses == 3, "two micro files and the master's statistics"

    # The old range needs the master's row group of those files, which the recent range ruled out unread.
    older = E.LessThan("event_time", (OLD + timedelta(hours=2)).isoformat())
    old = candidate_files(events.load(), older)
    assert len(old.files) == 2 and hot_stats().misses == 4, "one more row group read: the one that can match"
    again = candidate_files(events.load(), older)
    assert again.files == old.files and hot_stats().misses == 4, "the index was served from memory: nothing read again"
    assert len(recent) == 2


def test_a_tiny_memory_bound_evicts_but_returns_the_same_rows(events):
    for seed in range(3):
        events.append(event_rows(40, seed))
    predicate = E.EqualTo("user_id", 42)
    expected = sorted(events.load().scan(row_filter=predicate).to_arrow().column("event_id").to_pylist())
    HOT.clear()
    candidate_files(events.load(), predicate, hot_memory_mb=1)
    HOT.resize(1)  # one byte: nothing fits, every lookup reads from disk
    read = read_pruned_arrow(events.load(), predicate)
    assert sorted(read.rows.column("event_id").to_pylist()) == expected
    assert hot_stats().files == 0
    HOT.resize(64 * 1024 * 1024)
