"""Iceberg data files written from Arrow record batches inside Spark tasks (mapInArrow), with
pyiceberg's own file writer: a Parquet field id on every column (map keys and values included),
one partition per file, the table's write properties (codec, target size, metrics modes) and the
Iceberg metrics a commit needs. Nothing is committed here.

Imports only pyarrow and pyiceberg: it runs in the Spark executors' Python workers."""

from __future__ import annotations

import functools
import json
import operator
import uuid
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from lakeops.catalog import pyiceberg_catalog_props
from lakeops.config import CatalogConfig
from lakeops.staging.manifest import data_file_to_dict

if TYPE_CHECKING:
    import pyarrow as pa

OUTPUT_SCHEMA = "data_file string"
"""mapInArrow's output: one row per data file written, its data_file_to_dict as JSON."""


def data_file_writer(metadata_json: str, catalog: CatalogConfig,
                     partition_columns: list[str]) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """A mapInArrow function writing the rows of one Spark partition as data files of the table whose
    metadata is metadata_json (its write.data.path says where). partition_columns hold the partition
    values Iceberg stores, one per partition field, in spec order; they are not written."""

    def write(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import pyarrow as pa
        import pyarrow.compute as pc
        from pyiceberg.io import load_file_io
        from pyiceberg.io.pyarrow import bin_pack_arrow_table, schema_to_pyarrow, write_file
        from pyiceberg.partitioning import PartitionFieldValue, PartitionKey
        from pyiceberg.table import TableProperties, WriteTask
        from pyiceberg.table.metadata import TableMetadataUtil
        from pyiceberg.utils.properties import property_as_int

        received = list(batches)
        if not received or not any(b.num_rows for b in received):
            return
        rows = pa.Table.from_batches(received)
        metadata = TableMetadataUtil.parse_raw(metadata_json)
        schema, spec = metadata.schema(), metadata.spec()
        target = schema_to_pyarrow(schema, include_field_ids=False)
        target_size = property_as_int(metadata.properties, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
                                      TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT)
        write_uuid = uuid.uuid4()
        tasks = []
        keys = rows.select(partition_columns).group_by(partition_columns).aggregate([]).to_pylist() if partition_columns else [{}]
        for key in keys:
            part, partition_key = rows, None
            if partition_columns:
                match = functools.reduce(operator.and_, [pc.field(c).is_null() if key[c] is None else pc.field(c) == key[c]
                                                         for c in partition_columns])
                part = rows.filter(match)
                partition_key = PartitionKey([PartitionFieldValue(f, key[c]) for f, c in zip(spec.fields, partition_columns)],
                                             spec, schema)
            part = part.select(target.names).cast(target)
            for group in bin_pack_arrow_table(part, target_size or TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT):
                tasks.append(WriteTask(write_uuid, len(tasks), schema, group, partition_key=partition_key))
        io = load_file_io(pyiceberg_catalog_props(catalog), metadata.location)
        partition_type = spec.partition_type(schema)
        written = [json.dumps(data_file_to_dict(f, metadata.default_spec_id, partition_type)) for f in write_file(io, metadata, iter(tasks))]
        yield pa.RecordBatch.from_pydict({"data_file": written}, schema=pa.schema([("data_file", pa.string())]))

    return write
