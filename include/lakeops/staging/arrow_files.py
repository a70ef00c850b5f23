"""Iceberg data files written from Arrow record batches inside Spark tasks (mapInArrow), with
pyiceberg's own file writer: a Parquet field id on every column (map keys and values included),
one partition per file, the table's write properties (codec, target size, metrics modes) and the
Iceberg metrics a commit needs. Nothing is committed here.

One pass writes several targets: each takes the rows whose `reason` column is null (good rows) or
not null (rows to quarantine), so a writer parses its files once and writes both tables.

It runs in the Spark executors' Python workers, which therefore need pyiceberg and pyarrow (the
versions of requirements.lock) beside the lakeops archive Spark ships them; everything heavy is
imported inside, so a worker without them fails with an error that says so."""

from __future__ import annotations

import functools
import json
import operator
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakeops.catalog import storage_props
from lakeops.exceptions import IngestError

if TYPE_CHECKING:
    import pyarrow as pa

    from lakeops.config import CatalogConfig

REASON = "reason"
SOURCE_FILE = "source_file"
OUTPUT_SCHEMA = "target string, data_file string, source_files array<string>"
"""mapInArrow's output: one row per data file written: its target's name, data_file_to_dict as JSON, and the landed
files the task read rows of (so a caller counts the files of a batch without another pass)."""


@dataclass(frozen=True)
class Target:
    name: str
    metadata_json: str
    """The table's metadata, its write.data.path pointing where the files go."""
    good_rows: bool
    """True: the rows whose reason is null; False: the others (to quarantine)."""
    partition_columns: tuple[str, ...] = ()
    """Columns holding the partition values Iceberg stores, one per partition field in spec order; not written."""


def _write_target(rows: pa.Table, target: Target, catalog: CatalogConfig) -> list[str]:
    import pyarrow.compute as pc
    from pyiceberg.io import load_file_io
    from pyiceberg.io.pyarrow import bin_pack_arrow_table, schema_to_pyarrow, write_file
    from pyiceberg.partitioning import PartitionFieldValue, PartitionKey
    from pyiceberg.table import TableProperties, WriteTask
    from pyiceberg.table.metadata import TableMetadataUtil
    from pyiceberg.utils.properties import property_as_int

    from lakeops.staging.manifest import data_file_to_dict

    reason = pc.is_null(rows.column(REASON))
    rows = rows.filter(reason if target.good_rows else pc.invert(reason))
    if not rows.num_rows:
        return []
    metadata = TableMetadataUtil.parse_raw(target.metadata_json)
    schema, spec = metadata.schema(), metadata.spec()
    columns = list(target.partition_columns)
    arrow_schema = schema_to_pyarrow(schema, include_field_ids=False)
    default_size = TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT
    size = property_as_int(metadata.properties, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, default_size) or default_size
    write_uuid = uuid.uuid4()
    tasks: list[WriteTask] = []
    for key in rows.select(columns).group_by(columns).aggregate([]).to_pylist() if columns else [{}]:
        part, partition_key = rows, None
        if columns:
            part = rows.filter(functools.reduce(operator.and_, [pc.field(c).is_null() if key[c] is None else pc.field(c) == key[c]
                                                                 for c in columns]))
            values = [PartitionFieldValue(f, key[c]) for f, c in zip(spec.fields, columns, strict=False)]
            partition_key = PartitionKey(values, spec, schema)
        part = part.select(arrow_schema.names).cast(arrow_schema)
        for group in bin_pack_arrow_table(part, size):
            tasks.append(WriteTask(write_uuid, len(tasks), schema, group, partition_key=partition_key))
    io = load_file_io(storage_props(catalog), metadata.location)
    partition_type = spec.partition_type(schema)
    return [json.dumps(data_file_to_dict(f, metadata.default_spec_id, partition_type))
            for f in write_file(io, metadata, iter(tasks))]


def data_file_writer(targets: list[Target], catalog: CatalogConfig, report_sources: bool = False
                     ) -> Callable[[Iterable[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """A mapInArrow function writing the rows of one Spark partition as data files of every target; report_sources:
    fill source_files (else empty; a Kafka record's source_file is its offset, one per row)."""

    def write(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        try:
            import pyiceberg  # noqa: F401
        except ImportError as e:
            raise IngestError("staged writers write Iceberg data files with pyiceberg inside the Spark executors, whose "
                              f"Python has no pyiceberg ({e}); install pyiceberg and pyarrow (requirements.lock) in the "
                              "executors' Python (PYSPARK_PYTHON), or set ingest.commit_mode: direct") from e
        import pyarrow as pa
        import pyarrow.compute as pc

        received = [b for b in batches if b.num_rows]
        if not received:
            return
        rows = pa.Table.from_batches(received)
        sources = pc.unique(rows.column(SOURCE_FILE)).drop_null().to_pylist() if report_sources else []
        names, files = [], []
        for target in targets:
            written = _write_target(rows, target, catalog)
            names += [target.name] * len(written)
            files += written
        yield pa.RecordBatch.from_pydict({"target": names, "data_file": files, "source_files": [sources] * len(files)},
                                         schema=pa.schema([("target", pa.string()), ("data_file", pa.string()),
                                                           ("source_files", pa.list_(pa.string()))]))

    return write
