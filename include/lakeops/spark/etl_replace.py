"""An incremental run's write: the model table's files that may hold a row of an affected value are replaced by
their other rows plus the recomputed rows, in one OverwriteFiles staged under the run's identity and published like
every ETL commit (lakeops.spark.etl_commit). It is a copy-on-write MERGE without the join: the rows of the affected
values go, whatever the recompute yields for them, so no row needs matching with a recomputed one.

The files are chosen by Iceberg's planning from the run's spans and value ranges (manifests and column bounds), and
where no span confines them, narrowed to those holding an affected value by one scan of their recompute columns, as
Spark's runtime group filter narrows a MERGE's. The ranges stay in the planning: no value of a run enters a Spark plan,
so the code Spark generates is the same from run to run and stays compiled (docs/decisions/replace-not-merge.md).
The commit checks what Spark's copy-on-write commit checks: no conflicting data or deletes since the snapshot read."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lakeops.config.models import ModelConfig
from lakeops.etl.state import RECOMPUTED_ROWS
from lakeops.exceptions import ConfigError
from lakeops.spark.etl_frames import duplicate_key_error, join, key_names
from lakeops.spark.scan_tasks import StagedReads, filtered_tasks, iceberg_expression, java_items, java_table, singleton
from lakeops.spark.session import jvm
from lakeops.tables.identifier import quote

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, Observation, SparkSession

log = logging.getLogger(__name__)
FILE = "_lakeops_file"
DUPLICATE_KEY = "lakeops: a key of the model has two recomputed rows"
LINEAGE = ("_row_id", "_last_updated_sequence_number")
"""Row-lineage columns a format 3 table's staged read adds: kept for the rows copied, NULL (new) for the recomputed."""
ISOLATION = "write.merge.isolation-level"


@dataclass(frozen=True)
class Replacement:
    """What an incremental run replaces in the model's table and with what."""

    rows: DataFrame
    """the recomputed rows, in the model's columns"""
    affected: DataFrame
    """the affected values, in lakeops.spark.etl_frames.key_names columns"""
    condition: str
    """SQL over the model's table holding for every row of an affected value (spans and ranges); empty: every row"""
    narrow: bool
    """narrow the files the condition selects to those holding an affected value (no span confines them)"""
    nulls: frozenset[str]
    """the key_names columns with a NULL among the affected values (matched null-safely)"""
    staged: tuple[StagedReads, ...] = ()
    """the sources' staged reads the rows are computed from, released once the replacement is committed"""

    def release(self) -> None:
        for reads in self.staged:
            reads.release()


def replace(spark: SparkSession, table: str, model: ModelConfig, replacement: Replacement, run_id: str,
            properties: dict[str, str]) -> None:
    """Write the replacement and commit it as a snapshot staged under run_id, with properties in its summary.
    A SELECT yielding two rows for one key fails it before anything is committed, naming the key."""
    jtable = java_table(spark, table)
    current = jtable.currentSnapshot()
    snapshot = int(current.snapshotId()) if current is not None else None
    expression = iceberg_expression(spark, table, replacement.condition)
    tasks = filtered_tasks(spark, jtable, snapshot, expression) if snapshot is not None else jvm(spark).java.util.ArrayList()
    reads = StagedReads(spark, table, jtable)
    from pyspark.sql import Observation

    recomputed = Observation(f"lakeops_recomputed_{uuid.uuid4().hex}")
    try:
        if replacement.narrow and not tasks.isEmpty():
            tasks = _holding_affected(spark, reads, tasks, model, replacement)
        rows = _new_rows(reads, tasks, model, replacement, recomputed)
        files = java_items(spark, _write(spark, reads, rows, model, replacement.rows))
    finally:
        reads.release()
    written = _observed(recomputed)
    replaced = [task.file() for task in java_items(spark, tasks)]
    log.info("%s: %d file(s) of %s (%d rows) replaced by %d file(s) (%d rows, %s of them recomputed)", model.name,
             len(replaced), table, sum(int(f.recordCount()) for f in replaced), len(files),
             sum(int(f.recordCount()) for f in files), "?" if written is None else written)
    counted = {RECOMPUTED_ROWS: str(written)} if written is not None else {}
    _commit(jtable, snapshot, expression, replaced, files, run_id, {**properties, **counted})


def _observed(observation: Observation) -> int | None:
    """The rows an observation counted in the write that has just finished; None should Spark not have reported it
    (the JVM's getRowOrEmpty does not wait for it as Observation.get would, forever)."""
    observed = observation._jo  # the JVM's Observation, made by DataFrame.observe
    if observed is None:
        return None
    found = observed.getRowOrEmpty()
    return int(found.get().getLong(0)) if found.isDefined() else None


def _by_value(model: ModelConfig, frame: DataFrame) -> DataFrame:
    """frame with its recompute columns also under the key_names the affected values carry."""
    from pyspark.sql import functions as F

    return frame.select("*", *[F.col(quote(c)).alias(k) for c, k in zip(model.recompute_columns, key_names(model),
                                                                           strict=True)])


def _holding_affected(spark: SparkSession, reads: StagedReads, tasks: Any, model: ModelConfig,
                      replacement: Replacement) -> Any:
    """The tasks whose file holds a row of an affected value (one scan of their recompute columns). Should the scan name
    a file the tasks do not (another form of its location), every task is kept: a file left out would keep rows that
    the recomputed ones replace."""
    from pyspark.sql import functions as F

    names = key_names(model)
    scanned = _by_value(model, reads.read_java(tasks)).select(F.input_file_name().alias(FILE), *names)
    holding = join(scanned, replacement.affected, names, "left_semi", set(replacement.nulls), broadcast=True)
    found = {row[FILE] for row in holding.select(FILE).distinct().collect()}
    by_location = {str(task.file().location()): task for task in java_items(spark, tasks)}
    if not found <= set(by_location):
        log.warning("%s: the scan for the files holding affected values named files Iceberg's planning did not (%s); "
                    "every planned file is replaced", model.name, sorted(found - set(by_location))[:3])
        return tasks
    kept = jvm(spark).java.util.ArrayList()
    for location in found:
        kept.add(by_location[location])
    return kept


def _new_rows(reads: StagedReads, tasks: Any, model: ModelConfig, replacement: Replacement, recomputed: Observation
              ) -> DataFrame:
    """The replaced files' rows of other values, plus the recomputed rows (failing on a key with two of them; counted
    in `recomputed`)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    key = [F.col(quote(k)) for k in model.key]
    counted = "_lakeops_key_rows"
    rows = (replacement.rows.withColumn(counted, F.count(F.lit(1)).over(Window.partitionBy(*key)))
            .where(F.assert_true(F.col(counted) <= 1, F.lit(DUPLICATE_KEY)).isNull()).drop(counted)
            .observe(recomputed, F.count(F.lit(1)).alias("rows")))
    # The table's columns, in its order; one the SELECT does not yield is NULL in a recomputed row, as a MERGE's INSERT
    # leaves it.
    yielded = {c.lower() for c in rows.columns}
    fields = reads.table_schema.fields
    columns = [quote(f.name) if f.name.lower() in yielded else F.lit(None).cast(f.dataType).alias(f.name) for f in fields]
    if tasks.isEmpty():
        return rows.select(*columns)
    names = key_names(model)
    copied = join(_by_value(model, reads.read_java(tasks, lineage=True)), replacement.affected, names, "left_anti",
                  set(replacement.nulls), broadcast=True).drop(*names)
    lineage = [c for c in LINEAGE if c in copied.columns]
    return copied.select(*[quote(f.name) for f in fields], *lineage).unionByName(
        rows.select(*columns, *[F.lit(None).cast("long").alias(c) for c in lineage]))


def _write(spark: SparkSession, reads: StagedReads, rows: DataFrame, model: ModelConfig, recomputed: DataFrame) -> Any:
    """Write rows as new data files of the table without committing them (Iceberg's rewrite write: the table's
    distribution, ordering and file settings); their DataFile objects."""
    set_id = f"lakeops-write-{uuid.uuid4().hex}"
    reads.tables.add(set_id, reads.jtable)
    coordinator = singleton(spark, "org.apache.iceberg.spark.FileRewriteCoordinator")
    try:
        rows.write.format("iceberg").mode("append").save(set_id)
        return coordinator.fetchNewFiles(reads.jtable, set_id)
    except Exception as e:  # py4j/Spark wrap the task's error; the assertion's text is in the message
        if DUPLICATE_KEY not in str(e):
            raise
        raise ConfigError(duplicate_key_error(model, recomputed)) from e
    finally:
        coordinator.clearRewrite(reads.jtable, set_id)
        reads.tables.remove(set_id)


def _commit(jtable: Any, snapshot: int | None, expression: Any, replaced: list[Any], files: list[Any], run_id: str,
            properties: dict[str, str]) -> None:
    """One OverwriteFiles: the replaced data files out, the new ones in, validated as Spark validates a copy-on-write
    MERGE from the snapshot it read (serializable isolation unless the table says snapshot), staged under run_id."""
    overwrite = jtable.newOverwrite()
    for data_file in replaced:
        overwrite.deleteFile(data_file)
    for data_file in files:
        overwrite.addFile(data_file)
    if snapshot is not None:
        overwrite.validateFromSnapshot(snapshot)
    overwrite.conflictDetectionFilter(expression)
    if str(jtable.properties().getOrDefault(ISOLATION, "serializable")).lower() == "serializable":
        overwrite.validateNoConflictingData()
    overwrite.validateNoConflictingDeletes()
    for key, value in properties.items():
        overwrite.set(key, value)
    overwrite.set("wap.id", run_id)
    overwrite.stageOnly()
    overwrite.commit()
