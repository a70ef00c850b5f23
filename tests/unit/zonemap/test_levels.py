"""Planning of the zonemap levels against literal values: scopes, sources, what a reader loads,
what the master lets go, and which snapshots each zonemap file serves."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from lakeops.exceptions import ConfigError
from lakeops.zonemap.levels import (
    DAILY,
    HOURLY,
    MicroFile,
    Scope,
    Version,
    current_versions,
    day_scope,
    files_for_snapshots,
    hour_scope,
    parse_day,
    parse_hour,
    plan_sources,
    removable_micro,
    supersessions,
)

H10 = 1_795_255_200_000  # 2026-11-21T10:00:00Z
HOUR = 3_600_000


def v(path, level, period, seq, start, end, snapshot=None):
    return Version(path, level, period, snapshot or seq, seq, start, end, 1, seq)


def test_hour_scope_is_the_hour_and_rejects_a_time_inside_it():
    assert datetime.fromtimestamp(H10 / 1000, tz=UTC) == datetime(2026, 11, 21, 10, tzinfo=UTC)
    assert hour_scope(datetime(2026, 11, 21, 10, tzinfo=UTC)) == Scope(HOURLY, "2026-11-21T10", H10, H10 + HOUR)
    with pytest.raises(ConfigError, match="whole hour"):
        hour_scope(datetime(2026, 11, 21, 10, 30, tzinfo=UTC))
    with pytest.raises(ConfigError, match="2026-11-21T10:00:00\\+00:00"):
        parse_hour("yesterday")
    assert parse_day("2026-11-21") == date(2026, 11, 21)
    with pytest.raises(ConfigError, match="2026-11-21"):
        parse_day("21/11/2026")


def test_day_scope_ends_with_the_day_never_shrinks_and_never_passes_its_snapshot():
    day_end = H10 + 14 * HOUR  # 2026-11-22T00:00Z
    assert day_scope(date(2026, 11, 21), snapshot_ms=day_end + 5 * HOUR) == Scope(DAILY, "2026-11-21", None, day_end)
    assert day_scope(date(2026, 11, 20), snapshot_ms=day_end + 5 * HOUR, previous_end_ms=day_end).end_ms == day_end
    assert day_scope(date(2026, 11, 21), snapshot_ms=H10).end_ms == H10 + 1


def test_scope_holds_commits_in_its_window_and_expired_ones_only_in_the_master():
    hour = Scope(HOURLY, "h", H10, H10 + HOUR)
    assert [hour.holds(t) for t in (H10 - 1, H10, H10 + HOUR - 1, H10 + HOUR, None)] == [False, True, True, False, False]
    assert Scope(DAILY, "d", None, H10).holds(None) and not Scope(DAILY, "d", None, H10).holds(H10)


MICRO = [MicroFile("m/1", 1, H10 + 10), MicroFile("m/2", 2, H10 + HOUR + 10), MicroFile("m/0", 0, None)]


def test_hourly_sources_are_its_previous_version_and_its_hours_micro_files():
    hourly = [v("h10a", HOURLY, "2026-11-21T10", 5, H10, H10 + HOUR), v("h10b", HOURLY, "2026-11-21T10", 7, H10, H10 + HOUR),
              v("h11", HOURLY, "2026-11-21T11", 8, H10 + HOUR, H10 + 2 * HOUR)]
    assert plan_sources(Scope(HOURLY, "2026-11-21T10", H10, H10 + HOUR), MICRO, hourly, []) == ["h10b", "m/1"]


def test_daily_sources_are_the_master_the_uncovered_hours_and_micro_files_in_scope():
    daily = [v("d20", DAILY, "2026-11-20", 3, None, H10)]
    hourly = [v("h09", HOURLY, "2026-11-21T09", 2, H10 - HOUR, H10), v("h10", HOURLY, "2026-11-21T10", 6, H10, H10 + HOUR),
              v("h11", HOURLY, "2026-11-21T11", 8, H10 + HOUR, H10 + 2 * HOUR)]
    scope = Scope(DAILY, "2026-11-21", None, H10 + HOUR)
    assert plan_sources(scope, MICRO, hourly, daily) == ["d20", "h10", "m/0", "m/1"]
    master, current = current_versions(hourly, daily)
    assert master.path == "d20" and [h.path for h in current] == ["h10", "h11"]


def test_the_master_lets_go_of_micro_files_committed_in_its_scope_up_to_its_snapshot():
    master = v("d", DAILY, "2026-11-21", 9, None, H10 + HOUR)
    assert removable_micro(MICRO, master, master_committed_ms=H10 + HOUR - 1) == ["m/1", "m/0"]
    assert removable_micro(MICRO, master, master_committed_ms=H10) == ["m/0"]


def test_each_zonemap_file_serves_the_snapshots_until_its_replacement():
    versions = [v("d1", DAILY, "2026-11-20", 10, None, H10, snapshot=100),
                v("h10", HOURLY, "2026-11-21T10", 12, H10, H10 + HOUR, snapshot=120),
                v("d2", DAILY, "2026-11-21", 15, None, H10 + HOUR, snapshot=150)]
    assert supersessions(versions) == {"d1": 15, "d2": None, "h10": 15}
    sequences = {90: 9, 100: 10, 120: 12, 140: 14, 150: 15, 160: 16}
    micro = [MicroFile("m/160", 160, 1), MicroFile("m/77", 77, None)]
    owners = files_for_snapshots(versions, ["daily/orphan.parquet"], micro, sequences, current_snapshot=160)
    assert owners == {"d1": {100, 120, 140}, "h10": {120, 140}, "d2": {150, 160}, "m/160": {160}, "m/77": {160},
                      "daily/orphan.parquet": set()}
    # After expiry kept only 150 and 160, d1 and h10 serve no snapshot: they may be deleted.
    kept = files_for_snapshots(versions, [], micro, {150: 15, 160: 16}, current_snapshot=160)
    assert kept["d1"] == set() and kept["h10"] == set() and kept["d2"] == {150, 160}
