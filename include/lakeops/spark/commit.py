"""Exactly-once appends: stage the batch under its batch id, then publish it once.

Iceberg's write-audit-publish does the guarding: a staged snapshot carries `wap.id`, and
cherry-picking it refuses (DuplicateWAPCommitException) when a snapshot with the same id is
already among the current snapshot's ancestors. The check runs inside the commit, so two
runs of the same batch racing each other still publish it once.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger(__name__)

BATCH_ID_PROPERTY = "lakeops.batch-id"
DUPLICATE_PUBLISH = "DuplicateWAPCommitException"

def published_snapshot(spark: SparkSession, table: str, batch_id: str) -> int | None:
    """The snapshot that published batch_id on the current branch, if any."""
    from pyspark.sql import functions as F

    snapshots = spark.table(f"{table}.snapshots")
    ancestors = spark.table(f"{table}.history").where("is_current_ancestor").select("snapshot_id")
    tagged = (F.col("summary")["wap.id"] == F.lit(batch_id)) | (F.col("summary")["published-wap-id"] == F.lit(batch_id))
    rows = snapshots.where(tagged).join(ancestors, "snapshot_id").select("snapshot_id").collect()
    return rows[0][0] if rows else None


def _staged_snapshot(spark: SparkSession, table: str, batch_id: str) -> int:
    from pyspark.sql import functions as F

    staged = spark.table(f"{table}.snapshots").where(F.col("summary")["wap.id"] == F.lit(batch_id))
    return int(staged.orderBy(F.col("committed_at").desc()).select("snapshot_id").first()[0])


def stage_batch(spark: SparkSession, df: DataFrame, table: str, batch_id: str, summary: dict[str, str]) -> int:
    """Write df as a staged snapshot tagged with batch_id; it is not visible to readers until published."""
    writer = df.writeTo(table).option(f"snapshot-property.{BATCH_ID_PROPERTY}", batch_id)
    for key, value in summary.items():
        writer = writer.option(f"snapshot-property.{key}", value)
    spark.conf.set("spark.wap.id", batch_id)
    try:
        writer.append()
    finally:
        spark.conf.unset("spark.wap.id")
    return _staged_snapshot(spark, table, batch_id)


def publish_staged(spark: SparkSession, table: str, batch_id: str, staged: int) -> int | None:
    """Publish a staged snapshot. None when batch_id was already published (by a concurrent run)."""
    catalog = table.split(".")[0]
    try:
        spark.sql(f"CALL {catalog}.system.cherrypick_snapshot(table => '{table}', snapshot_id => {int(staged)})")
    except Exception as e:  # py4j/Spark wrap the Java exception; its class name is in the message
        if DUPLICATE_PUBLISH not in str(e):
            raise
        log.warning("batch %s was already published to %s; staged snapshot %s is left to snapshot expiry",
                    batch_id, table, staged)
        return None
    return published_snapshot(spark, table, batch_id)


def append_once(spark: SparkSession, df: DataFrame, table: str, batch_id: str, summary: dict[str, str]) -> int | None:
    """Append df to table unless batch_id is already published. Returns the published snapshot id,
    or None when an earlier or concurrent run had published the batch (nothing is written twice)."""
    if published_snapshot(spark, table, batch_id) is not None:
        log.info("batch %s is already committed to %s; nothing to do", batch_id, table)
        return None
    return publish_staged(spark, table, batch_id, stage_batch(spark, df, table, batch_id, summary))
