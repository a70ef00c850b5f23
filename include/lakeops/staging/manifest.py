"""What a staged writer publishes: which batch and share it wrote, the listing it split, and every
data file it wrote per table with the Iceberg metrics the committer commits (JSON; bounds and
partition values in Iceberg's single-value binary form, hex-encoded). No Spark, no I/O."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pyiceberg.conversions import from_bytes, to_bytes
from pyiceberg.manifest import DataFile, DataFileContent, FileFormat
from pyiceberg.typedef import Record
from pyiceberg.types import NestedField, PrimitiveType, StructType

from lakeops.exceptions import IngestError

MANIFEST_FORMAT = 1
_COUNTS = ("column_sizes", "value_counts", "null_value_counts", "nan_value_counts")
_BOUNDS = ("lower_bounds", "upper_bounds")


def _value_type(spec_field: NestedField) -> PrimitiveType:
    """A partition field's type: Iceberg partition values are always of a primitive type."""
    if not isinstance(spec_field.field_type, PrimitiveType):
        raise IngestError(f"partition field {spec_field.name} has type {spec_field.field_type}, not a primitive type")
    return spec_field.field_type


def data_file_to_dict(data_file: DataFile, spec_id: int, partition_type: StructType) -> dict[str, Any]:
    """A data file written for partition spec spec_id (of type `partition_type`), as JSON-ready data."""
    partition = []
    for i, spec_field in enumerate(partition_type.fields):
        value = data_file.partition[i]
        partition.append(None if value is None else to_bytes(_value_type(spec_field), value).hex())
    out: dict[str, Any] = {
        "path": data_file.file_path,
        "format": data_file.file_format.value,
        "spec_id": spec_id,
        "partition": partition,
        "record_count": data_file.record_count,
        "file_size_in_bytes": data_file.file_size_in_bytes,
        "split_offsets": list(data_file.split_offsets or []),
    }
    for name in _COUNTS:
        out[name] = {str(k): v for k, v in (getattr(data_file, name) or {}).items()}
    for name in _BOUNDS:
        out[name] = {str(k): v.hex() for k, v in (getattr(data_file, name) or {}).items()}
    return out


def data_file_from_dict(data: dict[str, Any], partition_type: StructType) -> DataFile:
    fields = partition_type.fields
    if len(data["partition"]) != len(fields):
        raise IngestError(f"staged file {data['path']} has {len(data['partition'])} partition values but the table's "
                          f"partition spec has {len(fields)}; the spec changed since it was written: re-run the writers")
    partition = Record(*[None if v is None else from_bytes(_value_type(f), bytes.fromhex(v))
                         for f, v in zip(fields, data["partition"], strict=False)])
    metrics: dict[str, Any] = {name: {int(k): int(v) for k, v in data[name].items()} for name in _COUNTS}
    metrics.update({name: {int(k): bytes.fromhex(v) for k, v in data[name].items()} for name in _BOUNDS})
    data_file = DataFile.from_args(
        content=DataFileContent.DATA,
        file_path=data["path"],
        file_format=FileFormat(data["format"]),
        partition=partition,
        record_count=int(data["record_count"]),
        file_size_in_bytes=int(data["file_size_in_bytes"]),
        split_offsets=[int(o) for o in data["split_offsets"]] or None,
        sort_order_id=None,
        equality_ids=None,
        key_metadata=None,
        **metrics,
    )
    data_file.spec_id = int(data["spec_id"])  # not a field of the file's record: pyiceberg keeps it beside
    return data_file


@dataclass(frozen=True)
class WriterManifest:
    batch_id: str
    writer: int
    writers: int
    attempt: str
    listed_files: int
    """Files in the interval's listing the writer split (all writers must have split the same one)."""
    listing_digest: str
    share: tuple[str, ...]
    rows: int
    quarantined: int
    files: dict[str, tuple[dict[str, Any], ...]] = field(default_factory=dict)
    """Table name (events, events_quarantine) -> the data files written for it (data_file_to_dict)."""

    def data_files(self, table: str) -> tuple[dict[str, Any], ...]:
        return self.files.get(table, ())

    def to_json(self) -> str:
        return json.dumps({"format": MANIFEST_FORMAT, "batch_id": self.batch_id, "writer": self.writer,
                           "writers": self.writers, "attempt": self.attempt, "listed_files": self.listed_files,
                           "listing_digest": self.listing_digest, "share": list(self.share), "rows": self.rows,
                           "quarantined": self.quarantined, "files": {t: list(f) for t, f in self.files.items()}},
                          indent=1, sort_keys=True)

    @classmethod
    def from_json(cls, text: str, where: str) -> WriterManifest:
        try:
            data = json.loads(text)
            if data.get("format") != MANIFEST_FORMAT:
                raise IngestError(f"staged manifest {where} has format {data.get('format')!r}, not {MANIFEST_FORMAT}; "
                                  "it was written by another lakeops version: re-run its writer")
            return cls(str(data["batch_id"]), int(data["writer"]), int(data["writers"]), str(data["attempt"]),
                       int(data["listed_files"]), str(data["listing_digest"]), tuple(data["share"]), int(data["rows"]),
                       int(data["quarantined"]), {str(t): tuple(f) for t, f in data["files"].items()})
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise IngestError(f"staged manifest {where} is unreadable ({e}); re-run its writer, which replaces it") from e
