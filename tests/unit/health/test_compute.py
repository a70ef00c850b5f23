"""Health metrics on real pyiceberg tables (SQLite catalog, local files) and the read-amplification
counting rules on literal files. pyiceberg writes no delete files; tables with real position
deletes and deletion vectors are covered by tests/integration/health."""

from __future__ import annotations

import time

import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.manifest import DataFileContent, FileFormat
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import IdentityTransform
from pyiceberg.typedef import Record
from pyiceberg.types import LongType, NestedField, StringType

from lakeops.config import CompactionPolicy
from lakeops.health.compute import _applying, compute_health
from lakeops.health.manifests import LiveFile

SCHEMA = Schema(NestedField(1, "id", LongType(), required=False), NestedField(2, "region", StringType(), required=False))
SPEC = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="region"))


@pytest.fixture()
def catalog(tmp_path):
    cat = SqlCatalog("t", uri=f"sqlite:///{tmp_path}/c.db", warehouse=(tmp_path / "wh").as_uri())
    cat.create_namespace("ns")
    return cat


def _rows(start: int, n: int, region: str) -> pa.Table:
    return pa.table({"id": pa.array(range(start, start + n), pa.int64()), "region": pa.array([region] * n)})


def test_empty_table_is_clean(catalog):
    table = catalog.create_table("ns.empty", SCHEMA, partition_spec=SPEC)
    health = compute_health(table)
    assert (health.data_files, health.delete_files, health.snapshots, health.manifests) == (0, 0, 0, 0)
    assert health.read_amp_files == 1.0 and health.read_amp_bytes == 1.0
    assert health.snapshot_id is None and health.last_commit_age_s is None and health.partitions == ()


def test_appends_counted_per_partition(catalog):
    table = catalog.create_table("ns.appends", SCHEMA, partition_spec=SPEC)
    for i in range(3):
        table.append(_rows(i * 100, 100, "eu"))
    table.append(_rows(1000, 5000, "us"))
    now = int(time.time() * 1000)
    # A 1 MB target with fraction 0.75: every file here (a few KB) is small.
    health = compute_health(table, CompactionPolicy(target_file_size_mb=1, small_file_fraction=0.75), now_ms=now + 60_000)

    assert health.snapshots == 4 and health.data_manifests == 4 and health.delete_manifests == 0
    assert health.data_files == 4 and health.data_records == 5300 and health.small_files == 4
    assert health.small_file_threshold_bytes == int(0.75 * 1024 * 1024)
    assert health.read_amp_files == 1.0 and health.read_amp_bytes == 1.0 and health.delete_files == 0
    assert 59 <= health.last_commit_age_s <= 60 + 5
    eu, us = health.partition("region=eu"), health.partition("region=us")
    assert (eu.data_files, eu.data_records, us.data_files, us.data_records) == (3, 300, 1, 5000)
    assert eu.partition_values == (("region", "eu"),)
    sizes = [r["file_size_in_bytes"] for r in table.inspect.files().to_pylist() if r["partition"]["region"] == "eu"]
    assert eu.data_bytes == sum(sizes) and eu.avg_file_size_bytes == pytest.approx(sum(sizes) / 3)
    assert health.data_bytes == sum(r["file_size_in_bytes"] for r in table.inspect.files().to_pylist())


def test_small_files_follow_the_policy_fraction(catalog):
    table = catalog.create_table("ns.sizes", SCHEMA, partition_spec=SPEC)
    table.append(_rows(0, 10, "eu"))
    table.append(_rows(0, 200_000, "eu"))
    sizes = sorted(r["file_size_in_bytes"] for r in table.inspect.files().to_pylist())
    # A target that puts the threshold between the two file sizes: only the smaller is small.
    fraction = 0.5
    target_mb = 1
    threshold = int(target_mb * 1024 * 1024 * fraction)
    assert sizes[0] < threshold < sizes[1], sizes
    health = compute_health(table, CompactionPolicy(target_file_size_mb=target_mb, small_file_fraction=fraction))
    assert health.small_files == 1 and health.small_file_bytes == sizes[0]
    roomy = compute_health(table, CompactionPolicy(target_file_size_mb=64))
    assert roomy.small_files == 2


def _file(content: DataFileContent, seq: int, path: str = "d", records: int = 10, size: int = 100,
          referenced: str | None = None, fmt: FileFormat = FileFormat.PARQUET) -> LiveFile:
    return LiveFile(content, fmt, path, 0, Record(), records, size, seq, None, referenced, None, None)


def test_partition_scoped_position_deletes_apply_to_older_or_same_sequence_data():
    data = [_file(DataFileContent.DATA, seq, path=f"d{seq}") for seq in (1, 2, 3)]
    seqs = [1, 2, 3]
    by_path = {f.path: f for f in data}
    assert _applying(_file(DataFileContent.POSITION_DELETES, 2), seqs, data, by_path) == 2
    assert _applying(_file(DataFileContent.EQUALITY_DELETES, 2), seqs, data, by_path) == 1
    assert _applying(_file(DataFileContent.POSITION_DELETES, 9, referenced="d3"), seqs, data, by_path) == 1
    assert _applying(_file(DataFileContent.POSITION_DELETES, 9, referenced="gone"), seqs, data, by_path) == 0
    assert _applying(_file(DataFileContent.POSITION_DELETES, 2, referenced="d3"), seqs, data, by_path) == 0


def test_thousand_by_thousand_partition_deletes_is_about_a_thousand():
    from lakeops.health.compute import _Group, _pair, _Totals, _totals

    group = _Group(data=[_file(DataFileContent.DATA, 1, path=f"d{i}") for i in range(1000)],
                   deletes=[_file(DataFileContent.POSITION_DELETES, 2 + i, records=1) for i in range(1000)])
    _pair(group, [])
    t: _Totals = _totals(group, small_threshold=0, window_start_ms=0, commit_ms={})
    assert t.read_amp_files() == pytest.approx(1001.0)
    # 10,000 rows, 1,000 deleted: live bytes 90,000 of 100,000; deletes read 1000 × 1000 × 100 bytes.
    assert t.read_amp_bytes() == pytest.approx((100_000 + 100_000_000) / 90_000)


def test_deletes_older_than_every_data_file_are_dangling_and_out_of_the_deleted_rows():
    """After a rewrite gave the data a new sequence number, the old deletes apply to nothing."""
    import dataclasses

    from lakeops.health.compute import _Group, _pair, _totals

    def delete(content, seq, path, records, referenced=None):
        f = _file(content, seq, path=path, records=records, referenced=referenced)
        return dataclasses.replace(f, snapshot_id=7)  # committed within the growth window

    group = _Group(data=[_file(DataFileContent.DATA, 5, path="d5", records=100)], deletes=[
        delete(DataFileContent.POSITION_DELETES, 3, "p3", 4),                      # older than d5: dangling
        delete(DataFileContent.POSITION_DELETES, 4, "p4", 2, referenced="gone"),   # names a replaced file
        delete(DataFileContent.POSITION_DELETES, 7, "p7", 1),                      # applies to d5
        delete(DataFileContent.EQUALITY_DELETES, 2, "e2", 3),                      # applies to nothing, never dangling
    ])
    _pair(group, [])
    t = _totals(group, small_threshold=0, window_start_ms=0, commit_ms={7: 1})
    assert (t.dangling_delete_files, t.dangling_delete_records) == (2, 6)
    assert t.read_amp_files() == pytest.approx(2.0)  # d5 and the one applying delete
    assert t.deleted_rows == 10 - 6
    assert t.recent_delete_files == 2  # growth counts the applying and the equality delete
