"""The expiry plan against literal snapshots, refs, watermarks and markers."""

from __future__ import annotations

import pytest

from lakeops.config import RetentionPolicy
from lakeops.exceptions import ConfigError
from lakeops.expiry.plan import HOUR_MS, RefInfo, SnapshotInfo, plan_expiry, resolve_request, retained_by_rules
from lakeops.expiry.zonemap_gc import ZonemapFile, zonemap_garbage
from lakeops.inflight import InflightMarker

NOW = 1_000 * HOUR_MS
POLICY = RetentionPolicy(max_snapshot_age_hours=120, min_snapshots=1, orphan_min_age_hours=72)


def chain(*hours_ago: int, first_id: int = 1) -> list[SnapshotInfo]:
    """A main-branch history: ids first_id.., each the child of the previous, committed hours_ago before NOW."""
    out, parent = [], None
    for i, ago in enumerate(hours_ago):
        out.append(SnapshotInfo(first_id + i, parent, NOW - ago * HOUR_MS))
        parent = first_id + i
    return out


MAIN = chain(300, 200, 130, 100, 10, 1)  # ids 1..6, 6 is current
REFS = [RefInfo("main", "branch", 6)]


def plan(snapshots=MAIN, refs=REFS, policy=POLICY, watermarks=None, markers=(), **overrides):
    request = resolve_request(policy, NOW, **overrides)
    return plan_expiry(snapshots, refs, request, policy, watermarks or {}, markers, NOW)


def test_policy_ages_count_back_from_now():
    request = resolve_request(POLICY, NOW)
    assert request.older_than_ms == NOW - 120 * HOUR_MS
    assert request.orphan_older_than_ms == NOW - 72 * HOUR_MS
    assert request.retain_last == 1


def test_snapshots_older_than_max_age_expire_newer_stay():
    p = plan()
    assert p.expire == (1, 2, 3)
    assert p.retained == 3 and p.guarded == ()
    assert p.call_older_than_ms == NOW - 120 * HOUR_MS


def test_retain_last_keeps_that_many_ancestors_even_when_old():
    p = plan(older_than_ms=NOW, retain_last=4)
    assert p.expire == (1, 2)


def test_backfill_date_expires_less_never_more():
    p = plan(as_of_ms=NOW - 100 * HOUR_MS)  # a run for a date 100 h ago: cutoff 220 h ago
    assert p.expire == (1,)
    assert plan(as_of_ms=NOW + 500 * HOUR_MS).expire == plan().expire  # a future date counts from now


def test_watermark_keeps_an_old_snapshot_and_says_why():
    p = plan(watermarks={"events_daily": 2})
    assert p.expire == (1, 3)
    assert [(k.snapshot_id, k.reason) for k in p.guarded] == [(2, "watermark of downstream table events_daily")]
    # Iceberg would drop 2 by age: the cut-off it gets is lowered to 2's commit time, 3 is named explicitly
    assert p.call_older_than_ms == NOW - 200 * HOUR_MS


def test_watermark_on_an_already_expired_snapshot_is_a_warning():
    p = plan(watermarks={"events_daily": 99})
    assert p.expire == (1, 2, 3)
    assert "events_daily" in p.warnings[0] and "99" in p.warnings[0]


def test_live_marker_keeps_its_snapshot_stale_marker_is_reported_not_honoured():
    live = InflightMarker("compaction", "run-a", 3, NOW - 2 * HOUR_MS, "/t/_lakeops/inflight/a.json")
    stale = InflightMarker("compaction", "run-b", 1, NOW - 30 * HOUR_MS, "/t/_lakeops/inflight/b.json")
    p = plan(markers=[live, stale])
    assert p.expire == (1, 2)
    assert [(k.snapshot_id, k.reason) for k in p.guarded] == [(3, "in-flight compaction run run-a")]
    assert p.stale_markers == (stale,)


def test_ref_heads_stay_and_protected_refs_are_named():
    tag_on_old = [*REFS, RefInfo("audit-2026", "tag", 2)]
    policy = RetentionPolicy(protected_refs=("audit-2026", "gone"))
    p = plan(refs=tag_on_old, policy=policy)
    assert p.expire == (1, 3)
    assert [(k.snapshot_id, k.reason) for k in p.refs_kept] == [(2, "protected tag audit-2026"), (6, "branch main")]
    assert any("'gone'" in w for w in p.warnings)


def test_other_branch_keeps_its_own_recent_ancestors_and_unreferenced_old_snapshots_go():
    side = [SnapshotInfo(10, 3, NOW - 20 * HOUR_MS), SnapshotInfo(11, 10, NOW - 5 * HOUR_MS)]
    staged_old = SnapshotInfo(20, 6, NOW - 130 * HOUR_MS)  # an unpublished staged snapshot, no ref
    staged_new = SnapshotInfo(21, 6, NOW - 2 * HOUR_MS)
    refs = [*REFS, RefInfo("audit", "branch", 11)]
    p = plan(snapshots=[*MAIN, *side, staged_old, staged_new], refs=refs)
    assert p.expire == (1, 2, 3, 20)


def test_walk_stops_at_first_old_ancestor_beyond_the_count():
    request = resolve_request(POLICY, NOW, retain_last=2)
    assert retained_by_rules(MAIN, REFS, request) == {4, 5, 6}


@pytest.mark.parametrize(("kwargs", "setting"), [
    ({"older_than_ms": NOW + 1}, "older_than"),
    ({"retain_last": 0}, "retain_last"),
    ({"orphan_min_age_hours": 23}, "orphan_min_age_hours"),
])
def test_dangerous_settings_are_refused_naming_the_setting(kwargs, setting):
    with pytest.raises(ConfigError) as e:
        resolve_request(POLICY, NOW, **kwargs)
    assert str(e.value).startswith(f"{setting}:")


def test_policy_refuses_short_orphan_window():
    with pytest.raises(ConfigError, match="retention.orphan_min_age_hours: 12"):
        RetentionPolicy(orphan_min_age_hours=12)


def test_zonemap_garbage_only_files_whose_snapshots_all_expire():
    served = {"z/h1": {1, 2}, "z/h2": {2, 5}, "z/micro/6": {6}, "z/dead-new": set(), "z/dead-old": set()}
    files = [ZonemapFile("z/h1", 10, 0), ZonemapFile("z/h2", 10, 0), ZonemapFile("z/micro/6", 10, 0),
             ZonemapFile("z/dead-new", 10, NOW), ZonemapFile("z/dead-old", 10, NOW - 100 * HOUR_MS),
             ZonemapFile("z/map/hourly.json", 10, 0)]
    got = zonemap_garbage(served, files, expire=[1, 2, 3], orphan_older_than_ms=NOW - 72 * HOUR_MS)
    assert [f.path for f in got] == ["z/dead-old", "z/h1"]
