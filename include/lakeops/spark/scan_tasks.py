"""Iceberg scan tasks planned in the driver's JVM and read back as a DataFrame through Iceberg's
ScanTaskSetManager (the way its own rewrite procedures read a chosen set of files): a read of some of a
table's files at a snapshot, with every delete file that applies to them there (position deletes,
equality deletes, deletion vectors), without reading the others."""

from __future__ import annotations

import functools
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lakeops.spark.session import jvm
from lakeops.tables.identifier import quote
from lakeops.tables.read_splits import ReadSplits, spread_splits

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType


SPLIT_SIZE, LOOKBACK, OPEN_COST = 128 * 1024 * 1024, 10, 4 * 1024 * 1024
"""Iceberg's defaults of read.split.target-size, read.split.planning-lookback and read.split.open-file-cost."""
UNSPLIT = 1 << 62
"""A split size no read reaches: every task in one group, whose bytes are the read's."""


@dataclass(frozen=True)
class PlannedFile:
    """One data file's scan task at a snapshot and the identity of the delete files applied to it."""

    task: Any
    deletes: frozenset[str]


def java_table(spark: SparkSession, qualified_name: str) -> Any:
    """The table's Iceberg Java object, refreshed: Spark's catalog may cache a table loaded before the
    snapshots a plan (made with pyiceberg) names."""
    table = jvm(spark).org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, qualified_name)
    table.refresh()
    return table


def planned_files(jtable: Any, snapshot: int) -> dict[str, PlannedFile]:
    """Every live data file of the table at `snapshot` -> its task, planned by Iceberg (manifests only)."""
    planned = jtable.newScan().useSnapshot(snapshot).planFiles()
    files: dict[str, PlannedFile] = {}
    try:
        tasks = planned.iterator()
        while tasks.hasNext():
            task = tasks.next()
            # A deletion vector is one blob of a Puffin file that may hold others: its offset tells them apart.
            deletes = frozenset(f"{d.location()}@{d.contentOffset()}" for d in task.deletes())
            files[task.file().location()] = PlannedFile(task, deletes)
    finally:
        planned.close()
    return files


def tasks_of(jtable: Any, snapshot: int | None, paths: set[str]) -> dict[str, Any]:
    """The scan tasks (with their delete files) of the given live data files at `snapshot` (None: the current one),
    planned by Iceberg, without the JVM calls planned_files makes per live file to tell its delete files apart
    (most of its time)."""
    scan = jtable.newScan()
    planned = (scan.useSnapshot(snapshot) if snapshot is not None else scan).planFiles()
    found: dict[str, Any] = {}
    try:
        tasks = planned.iterator()
        while len(found) < len(paths) and tasks.hasNext():
            task = tasks.next()
            path = task.file().location()
            if path in paths:
                found[path] = task
    finally:
        planned.close()
    return found


def java_items(spark: SparkSession, collection: Any) -> list[Any]:
    """The elements of a Java collection, by index: py4j's own iteration ends by a NoSuchElementException, which
    PySpark's error conversion takes some 20 ms to translate, once per loop."""
    items = collection if collection.getClass().getName() == "java.util.ArrayList" else jvm(spark).java.util.ArrayList(collection)
    return [items.get(i) for i in range(items.size())]


def iceberg_expression(spark: SparkSession, qualified_name: str, condition: str) -> Any:
    """A Spark SQL condition over the table's columns as an Iceberg expression (Java), resolved and folded by Spark the
    way Iceberg's rewrite_data_files reads its `where`; an empty condition is Iceberg's alwaysTrue."""
    gateway = jvm(spark)
    if not condition:
        return gateway.org.apache.iceberg.expressions.Expressions.alwaysTrue()
    converter = gateway.org.apache.spark.sql.execution.datasources.SparkExpressionConverter
    return converter.convertToIcebergExpression(
        converter.collectResolvedSparkExpression(spark._jsparkSession, qualified_name, condition))


def filtered_tasks(spark: SparkSession, jtable: Any, snapshot: int | None, expression: Any) -> Any:
    """The scan tasks (with their delete files) of the data files at `snapshot` (None: the current one) that may hold a
    row the Iceberg expression matches, planned by Iceberg from manifests and column bounds, as a java.util.List. The
    expression stays in the planning: a read of these tasks filters nothing, so no value of it enters a Spark plan."""
    scan = jtable.newScan().filter(expression)
    planned = (scan.useSnapshot(snapshot) if snapshot is not None else scan).planFiles()
    tasks = jvm(spark).java.util.ArrayList()
    try:
        iterator = planned.iterator()
        while iterator.hasNext():
            tasks.add(iterator.next())
    finally:
        planned.close()
    return tasks


def singleton(spark: SparkSession, class_name: str) -> Any:
    """The instance a class's static get() returns, the class loaded through the thread's context class
    loader (which holds the session's jars). SparkTableCache also has an instance get(String): py4j's
    own `SparkTableCache.get()` was seen to fail in some processes ("does not exist in the JVM").
    Looked up once per Spark context (five py4j calls each time otherwise, several per run)."""
    jvm(spark)  # a classic session: its context has a gateway
    return _singleton(spark.sparkContext, class_name)


@functools.cache
def _singleton(context: Any, class_name: str) -> Any:
    gateway = context._jvm
    loader = gateway.java.lang.Thread.currentThread().getContextClassLoader()
    cls = gateway.java.lang.Class.forName(class_name, True, loader)
    new_array = context._gateway.new_array
    return cls.getMethod("get", new_array(gateway.java.lang.Class, 0)).invoke(None, new_array(gateway.java.lang.Object, 0))


class StagedReads:
    """Task sets staged for reading; they stay staged (a lazy DataFrame reads them whenever it is
    evaluated) until release().

    A set is read as Iceberg's rewrite procedures read theirs: the table registered in Iceberg's
    SparkTableCache under the set's id and loaded by that id, which Iceberg resolves to a table whose
    scan is the staged tasks. (A scan-task-set-id option on a read of the table by its name is ignored
    by Iceberg 1.11: that read plans the whole table.)"""

    def __init__(self, spark: SparkSession, qualified_name: str, jtable: Any) -> None:
        self.spark, self.qualified_name, self.jtable = spark, qualified_name, jtable
        self.manager = singleton(spark, "org.apache.iceberg.spark.ScanTaskSetManager")
        self.tables = singleton(spark, "org.apache.iceberg.spark.SparkTableCache")
        self.set_ids: list[str] = []

    @functools.cached_property
    def table_schema(self) -> StructType:
        """The table's current Spark schema (the staged reads' columns, but for row lineage)."""
        return self.spark.read.table(self.qualified_name).schema

    def read(self, tasks: list[Any], metadata: tuple[str, ...] = ()) -> DataFrame:
        """The rows of these tasks in the table's columns, and the extra columns named (Iceberg's metadata columns
        `_file`, `_pos`, or a format 3 table's `_row_id`); none: an empty frame (Iceberg refuses an empty set)."""
        staged = jvm(self.spark).java.util.ArrayList()
        for task in tasks:
            staged.add(task)
        return self.read_java(staged, metadata=metadata)

    def read_java(self, staged: Any, lineage: bool = False, metadata: tuple[str, ...] = ()) -> DataFrame:
        """read() of tasks already in a java.util.List. The staged table's schema adds the row-lineage columns of a
        format 3 table (_row_id, _last_updated_sequence_number): kept with `lineage` (a rewrite of the rows keeps
        them), else the table's own columns only, and the extra columns named."""
        if staged.isEmpty():
            empty = self.spark.read.table(self.qualified_name).where("false")
            return empty.select("*", *metadata) if metadata else empty
        set_id = f"lakeops-{uuid.uuid4().hex}"
        self.tables.add(set_id, self.jtable)
        self.manager.stageTasks(self.jtable, set_id, staged)
        self.set_ids.append(set_id)
        reader = self.spark.read.format("iceberg")
        splits = self._spread(staged)
        if splits is not None:
            reader = reader.option("split-size", str(splits.split_size)).option("file-open-cost", str(splits.open_cost))
        rows = reader.load(set_id)
        return rows if lineage else rows.select(*[quote(f.name) for f in self.table_schema.fields], *metadata)

    @functools.cached_property
    def _packing(self) -> tuple[int, int, int, int]:
        """(the session's cores, and the table's split size, planning lookback and file-open cost): how Iceberg packs
        the table's staged reads unless told otherwise."""
        properties = self.jtable.properties()
        return (int(self.spark.sparkContext.defaultParallelism),
                int(properties.getOrDefault("read.split.target-size", str(SPLIT_SIZE))),
                int(properties.getOrDefault("read.split.planning-lookback", str(LOOKBACK))),
                int(properties.getOrDefault("read.split.open-file-cost", str(OPEN_COST))))

    def _spread(self, staged: Any) -> ReadSplits | None:
        """The splits that spread a read of these tasks over the cores (lakeops.tables.read_splits), None to leave
        Iceberg's packing: its task groups and their bytes are counted in the JVM, a few calls whatever the tasks."""
        cores, split, lookback, open_cost = self._packing
        util = jvm(self.spark).org.apache.iceberg.util.TableScanUtil
        groups = util.planTaskGroups(staged, split, lookback, open_cost).size()
        total = util.planTaskGroups(staged, UNSPLIT, 1, 0).get(0).sizeBytes()
        return spread_splits(int(total), int(groups), cores, open_cost)

    def release(self) -> None:
        for set_id in self.set_ids:
            self.manager.removeTasks(self.jtable, set_id)
            self.tables.remove(set_id)
        self.set_ids.clear()
