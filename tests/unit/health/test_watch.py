"""The health watch's two decisions, on literal states: when to evaluate a table again and when
an event is due."""

from __future__ import annotations

import pytest

from lakeops.health.watch import HealthWatch, WatchedTable, event_due, event_payload, needs_evaluation


def test_a_table_is_evaluated_first_and_then_only_on_a_new_snapshot():
    assert needs_evaluation(WatchedTable(), None)
    assert needs_evaluation(WatchedTable(), 7)
    seen = WatchedTable(evaluated=True, evaluated_snapshot=7)
    assert not needs_evaluation(seen, 7)
    assert needs_evaluation(seen, 8)
    assert needs_evaluation(WatchedTable(evaluated=True, evaluated_snapshot=None), 8)  # first commit
    assert not needs_evaluation(WatchedTable(evaluated=True, evaluated_snapshot=None), None)


def test_an_event_is_due_for_a_table_over_threshold_once_per_interval():
    over = {"read_amplification": ["day=2026-11-20"]}
    assert not event_due(WatchedTable(over={}), 1000.0, 600.0)
    assert event_due(WatchedTable(over=over), 1000.0, 600.0)
    assert not event_due(WatchedTable(over=over, last_event_s=500.0), 1000.0, 600.0)
    assert event_due(WatchedTable(over=over, last_event_s=400.0), 1000.0, 600.0)
    assert event_due(WatchedTable(over=over, last_event_s=999.0), 1000.0, 0.0)


def test_a_negative_interval_is_refused():
    with pytest.raises(ValueError, match="min_event_interval_s=-1 is negative"):
        HealthWatch(min_event_interval_s=-1)


def test_an_event_counts_every_partition_over_and_names_the_first_few():
    over = {"small_files": [f"day={d:02d}" for d in range(1, 31)], "read_amplification": ["day=07"]}
    payload = event_payload("events", 42, over, limit=3)
    assert payload == {"table": "events", "snapshot_id": 42, "over": {"small_files": 30, "read_amplification": 1},
                       "checks": {"small_files": ["day=01", "day=02", "day=03"], "read_amplification": ["day=07"]}}
