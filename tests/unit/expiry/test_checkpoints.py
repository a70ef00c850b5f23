"""Snapshots a streaming query reading the table needs, from its checkpoint files (literal offsets files as
Spark writes them for Iceberg's streaming source)."""

from __future__ import annotations

from lakeops.config import RetentionPolicy
from lakeops.expiry.checkpoints import CheckpointNeeds, batch_ids, initial_snapshots, needed_snapshots, offset_snapshots
from lakeops.expiry.plan import ExpiryRequest, RefInfo, SnapshotInfo, plan_expiry

METADATA = '{"batchWatermarkMs":0,"batchTimestampMs":1763719200000,"conf":{}}'


def offsets(*sources: str) -> str:
    return "\n".join(["v1", METADATA, *sources])


def iceberg(snapshot_id: int, position: int = 0) -> str:
    return f'{{"version":1,"snapshot_id":{snapshot_id},"position":{position},"scan_all_files":false}}'


def test_offsets_files_name_the_iceberg_sources_snapshots_and_skip_other_sources():
    assert offset_snapshots(offsets(iceberg(11, 3))) == [11]
    assert offset_snapshots(offsets('{"topic":{"0":42}}', iceberg(12))) == [12]
    assert offset_snapshots("v1\n" + METADATA) == []


def test_a_sources_stored_initial_offset_names_where_it_started():
    assert initial_snapshots(iceberg(8189296479641398876)) == [8189296479641398876]
    assert initial_snapshots("v1\n" + iceberg(5)) == [5]


def test_the_last_committed_batch_and_the_planned_ones_are_needed():
    texts = {0: offsets(iceberg(10)), 1: offsets(iceberg(11)), 2: offsets(iceberg(12)), 3: offsets(iceberg(13))}
    assert needed_snapshots(texts, committed=[0, 1, 2]) == [12, 13]
    assert needed_snapshots(texts, committed=[]) == [10, 11, 12, 13]
    assert batch_ids(["0", "1", ".1.crc", "10", "metadata"]) == [0, 1, 10]


def test_expiry_keeps_what_a_checkpoint_needs_and_every_later_snapshot_and_says_why():
    snapshots = [SnapshotInfo(i, i - 1 if i > 1 else None, i * 1000) for i in range(1, 7)]
    request = ExpiryRequest(older_than_ms=10_000, retain_last=1, orphan_older_than_ms=0, dry_run=False)
    refs = [RefInfo("main", "branch", 6)]
    needs = CheckpointNeeds(resume_from=[3, 99], started_at=[2])
    plan = plan_expiry(snapshots, refs, request, RetentionPolicy(), {}, [], 20_000, {"s3://ck/q1": needs})
    assert plan.expire == (1,)
    reasons = {k.snapshot_id: k.reason for k in plan.guarded}
    assert reasons[2] == "where the streaming query checkpointed at s3://ck/q1 started (read again at each availableNow start)"
    assert reasons[3] == "last processed by the streaming query checkpointed at s3://ck/q1"
    assert reasons[4] == reasons[5] == "not read yet by the streaming query checkpointed at s3://ck/q1"
    assert any("needs snapshot 99, which is no longer in the table" in w for w in plan.warnings)
