"""What changed in a source between two of its snapshots, as a relation: the changed rows with a change-type
column `_change_type` (insert, update_before, update_after, delete).

An append-only source's changes are the rows its appends added: one snapshot-range read of the appended files.
A changelog source (updates and deletes, merge-on-read included) is compared at the two snapshots: Iceberg's
changelog scan refuses delete files (position deletes, equality deletes and deletion vectors alike), while a
read at a snapshot applies them, so the difference of the two reads is right whatever the write mode. It is a
net change: several changes of one key between the snapshots are one change, a row added and deleted in the
range is none."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

CHANGE_TYPE = "_change_type"
CHANGE_TYPES = ("insert", "update_before", "update_after", "delete")


def appended(spark: SparkSession, table: str, start: int | None, end: int) -> DataFrame:
    """The rows the appends after `start` up to `end` added (start None: from the first snapshot)."""
    from pyspark.sql import functions as F

    reader = spark.read.option("end-snapshot-id", str(end))
    if start is not None:
        reader = reader.option("start-snapshot-id", str(start))
    else:
        reader = spark.read.option("versionAsOf", str(end))
    return reader.table(table).withColumn(CHANGE_TYPE, F.lit("insert"))


def changelog(spark: SparkSession, table: str, start: int | None, end: int, key: tuple[str, ...] = ()) -> DataFrame:
    """The net changes of `table` from snapshot `start` (exclusive; None: empty) to `end`. With `key`, a key
    removed and added again is an update (update_before, update_after); without, a delete and an insert."""
    from pyspark.sql import functions as F

    after = spark.read.option("versionAsOf", str(end)).table(table)
    if start is None:
        return after.withColumn(CHANGE_TYPE, F.lit("insert"))
    before = spark.read.option("versionAsOf", str(start)).table(table)
    removed, added = before.exceptAll(after), after.exceptAll(before)
    if not key:
        return removed.withColumn(CHANGE_TYPE, F.lit("delete")).unionByName(added.withColumn(CHANGE_TYPE, F.lit("insert")))
    removed, added = removed.cache(), added.cache()
    marker = "_lakeops_both"
    both = removed.select(*key).intersect(added.select(*key)).withColumn(marker, F.lit(True))

    def typed(rows: DataFrame, updated: str, plain: str) -> DataFrame:
        joined = rows.join(both, list(key), "left")
        kind = F.when(F.col(marker), F.lit(updated)).otherwise(F.lit(plain))
        return joined.withColumn(CHANGE_TYPE, kind).drop(marker).select(*rows.columns, CHANGE_TYPE)

    return typed(removed, "update_before", "delete").unionByName(typed(added, "update_after", "insert"))
