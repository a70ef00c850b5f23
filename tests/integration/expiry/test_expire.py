"""Expiry and orphan removal on a real local Iceberg table through the Spark runner, in-process."""

from __future__ import annotations

import dataclasses
import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from lakeops.exceptions import MaintenanceError
from lakeops.expiry.plan import resolve_request
from lakeops.spark.expire import list_files, run_expiry
from tests.integration.expiry.conftest import now_ms

pytestmark = pytest.mark.spark


def _state(history) -> tuple[dict[str, int], list[int], str]:
    table = history.load()
    return (list_files(history.spark, table.location()), sorted(s.snapshot_id for s in table.snapshots()),
            table.metadata_location)


def test_expiry_keeps_current_protected_and_watermarked_snapshots_readable(history):
    from lakeops.zonemap.consolidate import consolidate_day

    snapshots = []
    masters = []
    for b in range(8):
        snapshots.append(history.append(b))
        if b in (4, 5):  # two daily masters: the first serves snapshot 4 only, then it is replaced
            table = history.load()
            day = datetime.fromtimestamp(table.current_snapshot().timestamp_ms / 1000, tz=UTC).date()
            masters.append(consolidate_day(table, history.config.table("events"), day, remove_micro=False).path)
    history.spark.sql(f"ALTER TABLE {history.name} CREATE TAG audit AS OF VERSION {snapshots[3]}")
    history.mark_consumed(snapshots[1])
    before = {v: history.ids(v) for v in (snapshots[1], "audit", snapshots[-1])}
    expired_read = history.ids(snapshots[0])
    policy = history.config.table("events").retention

    now = now_ms()  # one instant: older_than equal to now, never a millisecond after it
    request = resolve_request(policy, now, older_than_ms=now, retain_last=2, dry_run=True)
    state = _state(history)
    dry = run_expiry(history.spark, history.config, "events", request)
    assert _state(history) == state  # dry run: same files, same metadata file, same snapshots
    assert dry.snapshots_expired == 0 and dry.files_removed == 0
    expected = sorted(set(snapshots) - {snapshots[1], snapshots[3], snapshots[6], snapshots[7]})
    assert sorted(dry.expire_ids) == expected and dry.predicted_files > 0 and dry.predicted_bytes > 0

    result = run_expiry(history.spark, history.config, "events", dataclasses.replace(request, dry_run=False))
    assert result.snapshots_expired == len(expected)
    assert sorted(s.snapshot_id for s in history.load().snapshots()) == sorted(set(snapshots) - set(expected))
    assert result.kept_by_guards == [{"snapshot_id": snapshots[1], "reason": "watermark of downstream table lakeops.events_copy"}]
    assert {"snapshot_id": snapshots[3], "reason": "protected tag audit"} in result.refs_kept
    assert result.files_removed == dry.predicted_files and result.bytes_removed == dry.predicted_bytes
    assert dry.zonemap_files_collected == result.zonemap_files_collected == 1
    assert not Path(masters[0].removeprefix("file://")).exists() and Path(masters[1].removeprefix("file://")).exists()
    for version, rows in before.items():
        assert history.ids(version) == rows, f"snapshot {version} lost rows"
    assert len(before[snapshots[-1]]) == 8 * 20 and expired_read
    with pytest.raises(Exception, match=f"Cannot find snapshot with ID {snapshots[0]}"):
        history.ids(snapshots[0])


def test_orphan_removal_spares_young_files_zonemaps_and_live_markers(history):
    from lakeops.inflight import inflight

    history.append(0)
    table = history.load()
    data_dir = Path(table.location().removeprefix("file:").removeprefix("//")) / "data"
    old = data_dir / "lost-by-a-crashed-writer.parquet"
    old.write_bytes(b"x" * 1000)
    four_days_ago = time.time() - 4 * 24 * 3600
    os.utime(old, (four_days_ago, four_days_ago))
    young = data_dir / "written-not-committed-yet.parquet"  # a writer that has not committed yet
    young.write_bytes(b"y" * 500)
    stale = Path(table.location().removeprefix("file:").removeprefix("//")) / "_lakeops" / "inflight" / "compaction-old.json"
    zonemaps_before = sorted(p for p in (data_dir.parent / "_zonemaps").rglob("*") if p.is_file())
    policy = history.config.table("events").retention
    rows = history.ids()

    with inflight(table.location(), "compaction", "run-live", table.current_snapshot().snapshot_id):
        stale.write_text('{"kind": "compaction", "run_id": "crashed", "snapshot_id": 1, "started_at_ms": 1000}')
        result = run_expiry(history.spark, history.config, "events", resolve_request(policy, now_ms()))
        assert len(list((stale.parent).glob("*.json"))) == 1  # the live marker stayed

    assert not old.exists() and young.exists() and not stale.exists()
    assert result.orphans_found == 1 and result.orphan_bytes == 1000 and result.stale_markers_removed == 1
    assert sorted(p for p in (data_dir.parent / "_zonemaps").rglob("*") if p.is_file()) == zonemaps_before
    assert history.ids() == rows


@pytest.mark.parametrize("prefix", ["s3a://old-bucket", "file://old-host"], ids=["scheme", "authority"])
def test_location_mismatch_stops_before_anything_is_deleted(history, prefix):
    """The table's metadata names an old file under another scheme or authority than the listing finds
    it (a location moved from s3a:// to s3://, a renamed bucket): Iceberg cannot tell whether the
    listed file is an orphan, and the run must stop rather than delete it."""
    import shutil

    history.append(0)
    table = history.load()
    local = Path(next(iter(table.scan().plan_files())).file.file_path.removeprefix("file:"))
    moved = local.with_name("written-under-the-old-location.parquet")
    shutil.copy(local, moved)
    ten_days_ago = time.time() - 10 * 24 * 3600
    os.utime(moved, (ten_days_ago, ten_days_ago))
    jvm = history.spark.sparkContext._jvm
    jtable = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(history.spark._jsparkSession, history.name)
    data_file = (jvm.org.apache.iceberg.DataFiles.builder(jtable.spec()).withPath(f"{prefix}{moved}")
                 .withFileSizeInBytes(moved.stat().st_size).withRecordCount(20)
                 .withPartitionPath(local.parent.name).withFormat("PARQUET").build())
    jtable.newAppend().appendFile(data_file).commit()
    state = _state(history)
    now = now_ms()  # one instant: older_than equal to now, never a millisecond after it
    request = resolve_request(history.config.table("events").retention, now, older_than_ms=now)

    with pytest.raises(MaintenanceError, match="nothing was deleted"):
        run_expiry(history.spark, history.config, "events", request)
    assert _state(history) == state and moved.exists()
