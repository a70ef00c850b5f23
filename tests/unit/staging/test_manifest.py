"""lakeops.staging.manifest: a writer's manifest and its data files survive JSON unchanged."""

from __future__ import annotations

import pytest
from pyiceberg.manifest import DataFile, DataFileContent, FileFormat
from pyiceberg.typedef import Record
from pyiceberg.types import DateType, IntegerType, NestedField, StructType

from lakeops.exceptions import IngestError
from lakeops.staging.manifest import WriterManifest, data_file_from_dict, data_file_to_dict

DAY_AND_BUCKET = StructType(NestedField(1000, "event_time_day", DateType(), required=False),
                            NestedField(1001, "user_id_bucket", IntegerType(), required=False))


def _data_file() -> DataFile:
    return DataFile.from_args(
        content=DataFileContent.DATA, file_path="s3://lake/events/data/staged/k/w000-a/x.parquet",
        file_format=FileFormat.PARQUET, partition=Record(20778, None), record_count=419, file_size_in_bytes=20480,
        column_sizes={1: 900, 4: 300}, value_counts={1: 419, 4: 419}, null_value_counts={1: 0, 4: 0},
        nan_value_counts={}, lower_bounds={1: b"0195dd71", 4: b"\x60\xa9\x00\x00\x00\x00\x00\x00"},
        upper_bounds={1: b"ffee", 4: b"\x70\xa9\x00\x00\x00\x00\x00\x00"}, split_offsets=[4], sort_order_id=None,
        equality_ids=None, key_metadata=None)


def test_data_file_as_json_data_with_hex_bounds_and_partition_values():
    data = data_file_to_dict(_data_file(), 3, DAY_AND_BUCKET)
    assert data == {
        "path": "s3://lake/events/data/staged/k/w000-a/x.parquet", "format": "PARQUET", "spec_id": 3,
        "partition": ["2a510000", None], "record_count": 419, "file_size_in_bytes": 20480, "split_offsets": [4],
        "column_sizes": {"1": 900, "4": 300}, "value_counts": {"1": 419, "4": 419},
        "null_value_counts": {"1": 0, "4": 0}, "nan_value_counts": {},
        "lower_bounds": {"1": "3031393564643731", "4": "60a9000000000000"},
        "upper_bounds": {"1": "66666565", "4": "70a9000000000000"},
    }


def test_data_file_round_trip_keeps_every_field_and_the_spec_id():
    original = _data_file()
    back = data_file_from_dict(data_file_to_dict(original, 3, DAY_AND_BUCKET), DAY_AND_BUCKET)
    for name in ("file_path", "file_format", "partition", "record_count", "file_size_in_bytes", "column_sizes",
                 "value_counts", "null_value_counts", "nan_value_counts", "lower_bounds", "upper_bounds", "split_offsets"):
        assert getattr(back, name) == getattr(original, name), name
    assert back.content == DataFileContent.DATA and back.spec_id == 3


def test_a_partition_tuple_of_another_spec_is_refused():
    data = data_file_to_dict(_data_file(), 0, DAY_AND_BUCKET)
    with pytest.raises(IngestError, match=r"has 2 partition values but the table's partition spec has 1; .* re-run the writers"):
        data_file_from_dict(data, StructType(DAY_AND_BUCKET.fields[0]))


def test_manifest_round_trip():
    manifest = WriterManifest("events@k", 1, 4, "ab12", 5, "d" * 64, ("b.jsonl", "c.jsonl"), 118, 2,
                              {"events": ({"path": "x"},), "events_quarantine": ()})
    assert WriterManifest.from_json(manifest.to_json(), "w001") == manifest
    assert manifest.data_files("events") == ({"path": "x"},) and manifest.data_files("other") == ()


@pytest.mark.parametrize("text, message", [
    ('{"format": 1, "batch_id": "events@k"', "is unreadable"),
    ('{"format": 2}', "has format 2, not 1; it was written by another lakeops version: re-run its writer"),
    ('{"format": 1, "batch_id": "events@k"}', "is unreadable .*re-run its writer"),
])
def test_unreadable_manifests_name_the_file_and_the_fix(text, message):
    with pytest.raises(IngestError, match=rf"staged manifest _staging/k/w001.manifest.json {message}"):
        WriterManifest.from_json(text, "_staging/k/w001.manifest.json")
