"""Zonemap-pruned reads with Spark: Iceberg plans the table's scan tasks (each data file with its
position and equality delete files), only the candidate files' tasks are staged as a scan task set
(Iceberg's ScanTaskSetManager, which its own rewrite procedures read through), and Spark reads that
set with the predicate applied. Every kind of delete is honored, so the rows are exactly those of
a full scan with the same filter."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyiceberg.expressions import BooleanExpression

from lakeops.spark.session import jvm
from lakeops.zonemap.candidates import Candidates, candidate_files
from lakeops.zonemap.sql import to_spark_sql

if TYPE_CHECKING:
    from pyiceberg.table import Table
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SparkPrunedRead:
    frame: DataFrame
    files_read: int
    bytes_read: int
    candidates: Candidates


@contextmanager
def pruned_frame(spark: SparkSession, qualified_name: str, table: Table, predicate: BooleanExpression,
                 snapshot: int | None = None) -> Iterator[SparkPrunedRead]:
    """A DataFrame of the rows matching predicate, reading only candidate files; use it inside the block
    (the staged task set is released on exit)."""
    found = candidate_files(table, predicate, snapshot)
    keep = set(found.files)
    gateway = jvm(spark)
    jtable = gateway.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, qualified_name)
    scan = jtable.newScan()
    if snapshot is not None:
        scan = scan.useSnapshot(snapshot)
    staged = gateway.java.util.ArrayList()
    size = 0
    planned = scan.planFiles()
    try:
        tasks = planned.iterator()
        while tasks.hasNext():
            task = tasks.next()
            data_file = task.file()
            if data_file.location() in keep:
                staged.add(task)
                size += data_file.fileSizeInBytes()
    finally:
        planned.close()
    if staged.isEmpty():  # Iceberg refuses an empty task set; no candidate means no row
        log.info("zonemap Spark read of %s: no candidate among %d live files", qualified_name, found.live_files)
        yield SparkPrunedRead(spark.read.table(qualified_name).where("false"), 0, 0, found)
        return
    set_id = f"lakeops-zonemap-{uuid.uuid4().hex}"
    manager = gateway.org.apache.iceberg.spark.ScanTaskSetManager.get()
    manager.stageTasks(jtable, set_id, staged)
    try:
        reader = spark.read.format("iceberg").option("scan-task-set-id", set_id)
        frame = reader.load(qualified_name).where(to_spark_sql(predicate, table.schema()))
        log.info("zonemap Spark read of %s: %d of %d live files staged", qualified_name, staged.size(), found.live_files)
        yield SparkPrunedRead(frame, staged.size(), size, found)
    finally:
        manager.removeTasks(jtable, set_id)
