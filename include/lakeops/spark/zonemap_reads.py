"""Zonemap-pruned reads with Spark: the candidate files' scan tasks are staged as a scan task set
(Iceberg's ScanTaskSetManager, which its own rewrite procedures read through) and Spark reads that
set with the predicate applied. How is decided from the index (lakeops.zonemap.read_plan): a few
small candidates read in the driver by pyiceberg's Arrow reader into a local DataFrame (no Spark
scan); tasks built from the index with no planning in the JVM; planned by Iceberg in the JVM when
they must carry delete files (every kind of delete is then honored); or no staging at all, a plain
Iceberg scan, when the index prunes too little to pay. The rows are exactly those of a full scan
with the same filter."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from pyiceberg.expressions import BooleanExpression

from lakeops.spark.scan_tasks import StagedReads, java_table, tasks_of
from lakeops.spark.session import jvm
from lakeops.zonemap.candidates import Candidates, candidate_files
from lakeops.zonemap.read_plan import ARROW_MAX_BYTES, ReadPlan
from lakeops.zonemap.reads import arrow_rows, index_tasks, read_plan
from lakeops.zonemap.sql import to_spark_sql

if TYPE_CHECKING:
    from pyiceberg.table import Table
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SparkPrunedRead:
    frame: DataFrame
    files_read: int
    """Files the read opens (-1 for a plain scan: Iceberg's own planning decides)."""
    bytes_read: int
    candidates: Candidates
    plan: ReadPlan


def _arrow_frame(spark: SparkSession, qualified_name: str, table: Table, predicate: BooleanExpression,
                 snapshot: int | None, plan: ReadPlan) -> DataFrame | None:
    """The plan's files read in the driver by pyiceberg's Arrow reader, as a local DataFrame with the
    table's Spark schema, which keeps the rows for its toArrow() and makes its Java frame only when first used
    (lakeops.spark.held_rows); None when Spark
    cannot take the Arrow types as its own (then Spark reads). The reader applies the predicate to every
    row, so the frame holds exactly the matching rows."""
    import pyarrow as pa

    from lakeops.spark.held_rows import HeldRowsFrame

    scan = table.scan(row_filter=predicate, snapshot_id=snapshot)
    rows = arrow_rows(scan, index_tasks(table, plan.files))
    try:
        return HeldRowsFrame.of(spark, rows, _spark_schema(spark, scan.projection().model_dump_json()))
    except (pa.ArrowException, TypeError, ValueError) as e:
        log.info("zonemap read of %s: the Arrow rows do not convert to the Spark schema (%s); Spark reads the files",
                 qualified_name, e)
        return None


def _spark_schema(spark: SparkSession, iceberg_schema_json: str) -> StructType:
    """The Spark schema Iceberg's Spark catalog gives a table of this Iceberg schema (its own
    conversion, SparkSchemaUtil), without loading the table through the catalog; kept per schema
    (the conversion depends on nothing else)."""
    from pyspark.sql.types import StructType

    if iceberg_schema_json not in _SPARK_SCHEMAS:
        gateway = jvm(spark)
        converted = gateway.org.apache.iceberg.spark.SparkSchemaUtil.convert(
            gateway.org.apache.iceberg.SchemaParser.fromJson(iceberg_schema_json))
        if len(_SPARK_SCHEMAS) >= _SPARK_SCHEMAS_KEPT:
            _SPARK_SCHEMAS.pop(next(iter(_SPARK_SCHEMAS)))
        _SPARK_SCHEMAS[iceberg_schema_json] = StructType.fromJson(json.loads(converted.json()))
    return _SPARK_SCHEMAS[iceberg_schema_json]


_SPARK_SCHEMAS: dict[str, StructType] = {}
_SPARK_SCHEMAS_KEPT = 64


def _staged_tasks(spark: SparkSession, jtable: Any, plan: ReadPlan) -> Any:
    """The plan's files as Iceberg scan tasks, built from the index: no manifest is read."""
    gateway = jvm(spark)
    iceberg = gateway.org.apache.iceberg
    spec = jtable.spec()
    schema_json = iceberg.SchemaParser.toJson(jtable.schema())
    spec_json = iceberg.PartitionSpecParser.toJson(spec)
    residual = iceberg.expressions.ResidualEvaluator.unpartitioned(iceberg.expressions.Expressions.alwaysTrue())
    no_deletes = cast(Any, spark.sparkContext._gateway).new_array(iceberg.DeleteFile, 0)  # present: jvm() checked
    tasks = gateway.java.util.ArrayList()
    for f in plan.files:
        builder = (iceberg.DataFiles.builder(spec).withPath(f.path).withFileSizeInBytes(f.size)
                   .withRecordCount(f.records).withFormat("parquet"))
        if f.partition:
            values = gateway.java.util.ArrayList()
            for value in f.partition:
                values.add(value)
            builder = builder.withPartitionValues(values)
        tasks.add(iceberg.BaseFileScanTask(builder.build(), no_deletes, schema_json, spec_json, residual))
    return tasks


def _planned_tasks(gateway: Any, jtable: Any, keep: set[str], snapshot: int | None) -> Any:
    """Iceberg plans the table's tasks (with their delete files) in the JVM; the candidates' are kept, as a Java list."""
    staged = gateway.java.util.ArrayList()
    for task in tasks_of(jtable, snapshot, keep).values():
        staged.add(task)
    return staged


@contextmanager
def pruned_frame(spark: SparkSession, qualified_name: str, table: Table, predicate: BooleanExpression,
                 snapshot: int | None = None, *, keep_staged: bool = False,
                 arrow_max_bytes: int = ARROW_MAX_BYTES) -> Iterator[SparkPrunedRead]:
    """A DataFrame of the rows matching predicate, reading only candidate files (or a plain scan when
    the index says pruning would not pay, lakeops.zonemap.read_plan); use it inside the block (the
    staged task set is released on exit, unless keep_staged: then it lives as long as the session,
    for a frame returned to a caller). Candidates of at most arrow_max_bytes are read in the driver
    (0: never)."""
    found = candidate_files(table, predicate, snapshot)
    plan = read_plan(table, found, snapshot, arrow_max_bytes)
    condition = to_spark_sql(predicate, table.schema())
    log.info("zonemap Spark read of %s: %s of %d live files (%s)", qualified_name, len(found.files), found.live_files,
             plan.reason)
    if plan.method == "empty":  # Iceberg refuses an empty task set; no candidate means no row
        yield SparkPrunedRead(spark.read.table(qualified_name).where("false"), 0, 0, found, plan)
        return
    if plan.method == "plain":
        reader = spark.read.option("snapshot-id", snapshot) if snapshot is not None else spark.read
        yield SparkPrunedRead(reader.format("iceberg").load(qualified_name).where(condition), -1, -1, found, plan)
        return
    size = sum(found.sizes.get(p, 0) for p in found.files)
    if plan.method == "arrow":
        local = _arrow_frame(spark, qualified_name, table, predicate, snapshot, plan)
        if local is not None:
            yield SparkPrunedRead(local, len(plan.files), size, found, plan)
            return
        plan = ReadPlan("staged", f"{plan.reason}; the Arrow rows did not convert, so staged", plan.files)
    gateway = jvm(spark)
    jtable = java_table(spark, qualified_name)
    keep = set(found.files)
    staged = _staged_tasks(spark, jtable, plan) if plan.method == "staged" else _planned_tasks(gateway, jtable, keep, snapshot)
    if staged.isEmpty():
        yield SparkPrunedRead(spark.read.table(qualified_name).where("false"), 0, 0, found, plan)
        return
    reads = StagedReads(spark, qualified_name, jtable)
    try:
        yield SparkPrunedRead(reads.read_java(staged).where(condition), staged.size(), size, found, plan)
    finally:
        if not keep_staged:
            reads.release()
