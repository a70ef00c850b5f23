import time

import pytest

from lakeops.inflight import MARKER_TTL_HOURS, InflightMarker, inflight, read_markers


def test_marker_exists_inside_the_block_and_is_removed_after(tmp_path):
    location = tmp_path.as_uri()
    with inflight(location, "compaction", "run-1", 42) as marker:
        assert read_markers(location) == [marker]
        assert marker.snapshot_id == 42 and marker.kind == "compaction"
    assert read_markers(location) == []


def test_marker_is_removed_when_the_job_fails(tmp_path):
    location = tmp_path.as_uri()
    with pytest.raises(RuntimeError), inflight(location, "compaction", "run-1", 7):
        raise RuntimeError("rewrite failed")
    assert read_markers(location) == []


def test_unreadable_marker_is_skipped(tmp_path):
    root = tmp_path / "_lakeops" / "inflight"
    root.mkdir(parents=True)
    (root / "compaction-x.json").write_text("{truncated")
    assert read_markers(tmp_path.as_uri()) == []


def test_marker_older_than_the_ttl_no_longer_protects():
    now = int(time.time() * 1000)
    fresh = InflightMarker("compaction", "r", 1, now - 1000, "p")
    stale = InflightMarker("compaction", "r", 1, now - MARKER_TTL_HOURS * 3600 * 1000 - 1, "p")
    assert fresh.is_live(now) and not stale.is_live(now)
