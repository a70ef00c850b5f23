"""Exactly-once appends: stage the batch under its batch id, then publish it once.

Iceberg's write-audit-publish does the guarding: a staged snapshot carries `wap.id`, and
cherry-picking it refuses (DuplicateWAPCommitException) when a snapshot with the same id is
already among the current snapshot's ancestors. The check runs inside the commit, so two
runs of the same batch racing each other still publish it once.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lakeops.batches import BATCH_ID_PROPERTY, published_snapshot, staged_snapshot
from lakeops.exceptions import IngestError
from lakeops.failpoints import failpoint
from lakeops.phases import PhaseTimer
from lakeops.tables.identifier import TableId

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger(__name__)

DUPLICATE_PUBLISH = "DuplicateWAPCommitException"

def _metadata(catalog: Catalog, table: str) -> Table:
    """The table as the catalog has it now: catalog.namespace.name -> namespace.name."""
    return catalog.load_table(TableId.from_qualified(table)[1].as_tuple())


def stage_batch(spark: SparkSession, catalog: Catalog, df: DataFrame, table: str, batch_id: str,
                summary: dict[str, str]) -> int:
    """Write df as a staged snapshot tagged with batch_id; it is not visible to readers until published."""
    writer = df.writeTo(table).option(f"snapshot-property.{BATCH_ID_PROPERTY}", batch_id)
    for key, value in summary.items():
        writer = writer.option(f"snapshot-property.{key}", value)
    spark.conf.set("spark.wap.id", batch_id)
    try:
        writer.append()
    finally:
        spark.conf.unset("spark.wap.id")
    staged = staged_snapshot(_metadata(catalog, table), batch_id)
    if staged is None:
        raise IngestError(f"batch {batch_id} was written to {table} but no snapshot carries its wap.id; "
                          f"check that the table property write.wap.enabled is true")
    return staged


def publish_staged(spark: SparkSession, catalog: Catalog, table: str, batch_id: str, staged: int) -> int | None:
    """Publish a staged snapshot. None when batch_id was already published (by a concurrent run)."""
    spark_catalog = TableId.from_qualified(table)[0]
    try:
        spark.sql(f"CALL {spark_catalog}.system.cherrypick_snapshot(table => '{table}', snapshot_id => {int(staged)})")
    except Exception as e:  # py4j/Spark wrap the Java exception; its class name is in the message
        if DUPLICATE_PUBLISH not in str(e):
            raise
        log.warning("batch %s was already published to %s; staged snapshot %s is left to snapshot expiry",
                    batch_id, table, staged)
        return None
    return published_snapshot(_metadata(catalog, table), batch_id)


def append_once(spark: SparkSession, catalog: Catalog, df: DataFrame, table: str, batch_id: str,
                summary: dict[str, str], failpoint_name: str | None = None, timer: PhaseTimer | None = None
                ) -> int | None:
    """Append df to table unless batch_id is already published. Returns the published snapshot id,
    or None when an earlier or concurrent run had published the batch (nothing is written twice).
    failpoint_name: a failpoint between staging and publishing (crash tests). timer: staging goes
    to its phase `write`, the checks and the publish to `commit`."""
    timer = timer or PhaseTimer()
    with timer.phase("commit"):
        if published_snapshot(_metadata(catalog, table), batch_id) is not None:
            log.info("batch %s is already committed to %s; nothing to do", batch_id, table)
            return None
    with timer.phase("write"):
        staged = stage_batch(spark, catalog, df, table, batch_id, summary)
    if failpoint_name:
        failpoint(failpoint_name)
    with timer.phase("commit"):
        return publish_staged(spark, catalog, table, batch_id, staged)
