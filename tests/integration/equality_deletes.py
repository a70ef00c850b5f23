"""Equality delete files committed through Iceberg's Java API: Spark writes none itself, while Flink and
Kafka Connect sinks do, so the tests make them the way those writers' commits carry them."""

from __future__ import annotations

import os
import uuid

import pyarrow as pa
import pyarrow.parquet as pq


def commit_equality_delete(spark, qualified_name: str, table, column: str, values: list[int], data_file) -> None:
    """Commit one equality delete file on the bigint `column` (every row whose value is in `values`), in the
    partition of `data_file` (a pyiceberg DataFile of the table), as a row delta of its own."""
    field_id = table.schema().find_field(column).field_id
    folder = data_file.file_path.rsplit("/", 1)[0]
    path = f"{folder}/eq-delete-{uuid.uuid4().hex[:12]}.parquet"
    schema = pa.schema([pa.field(column, pa.int64(), nullable=False, metadata={b"PARQUET:field_id": str(field_id).encode()})])
    local = path.removeprefix("file:")
    pq.write_table(pa.table({column: values}, schema=schema), local)
    jvm, gateway = spark._jvm, spark.sparkContext._gateway
    iceberg = jvm.org.apache.iceberg
    jtable = iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, qualified_name)
    jtable.refresh()
    ids = gateway.new_array(jvm.int, 1)
    ids[0] = field_id
    spec = jtable.specs().get(data_file.spec_id)
    builder = (iceberg.FileMetadata.deleteFileBuilder(spec).ofEqualityDeletes(ids).withPath(path).withFormat("PARQUET")
               .withFileSizeInBytes(os.path.getsize(local)).withRecordCount(len(values)))
    if spec.isPartitioned():
        partition = spec.partitionToPath(iceberg.DataFiles.data(spec, folder.rsplit("/", 1)[1]))
        builder = builder.withPartitionPath(partition)
    jtable.newRowDelta().addDeletes(builder.build()).commit()
