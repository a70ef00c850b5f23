"""Exactly-once MERGE: stage the row-level commit under its batch id, then publish it by fast-forward.

The same write-audit-publish guard as appends (lakeops.spark.commit): with `spark.wap.id` set the
MERGE's commit is staged, not made current, and `cherrypick_snapshot` publishes it. A MERGE
snapshot is not an append, so Iceberg publishes it only as a fast-forward (its parent is still the
current snapshot); that check runs inside the publishing commit. When another commit landed in
between (a compaction, a concurrent run of the same batch), the publish is refused and the batch
is merged again on the new state, unless the batch is found published by then.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lakeops.batches import published_snapshot, staged_snapshot
from lakeops.exceptions import IngestError
from lakeops.failpoints import INGEST_BEFORE_PUBLISH, failpoint
from lakeops.spark.commit import BATCH_ID_PROPERTY, DUPLICATE_PUBLISH
from lakeops.tables.identifier import TableId

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)

SNAPSHOT_PROPERTY_CONF = "spark.sql.iceberg.snapshot-property."
# Messages of the Java exceptions that mean "the table moved under us": merge again on the new state.
RETRYABLE = ("not append, dynamic overwrite, or fast-forward", "ValidationException", "CommitFailedException",
             "Found conflicting files", "Missing required files", "Cannot commit")
DEFAULT_ATTEMPTS = 4


def _load(catalog: Catalog, table: str):
    return catalog.load_table(TableId.from_qualified(table)[1].as_tuple())


def _stage_merge(spark: SparkSession, catalog: Catalog, table: str, sql: str, batch_id: str,
                 summary: dict[str, str]) -> int:
    props = {BATCH_ID_PROPERTY: batch_id, **summary}
    spark.conf.set("spark.wap.id", batch_id)
    for key, value in props.items():
        spark.conf.set(SNAPSHOT_PROPERTY_CONF + key, value)
    try:
        spark.sql(sql)
    finally:
        spark.conf.unset("spark.wap.id")
        for key in props:
            spark.conf.unset(SNAPSHOT_PROPERTY_CONF + key)
    staged = staged_snapshot(_load(catalog, table), batch_id)
    if staged is None:
        raise IngestError(f"MERGE of batch {batch_id} into {table} left no snapshot carrying its wap.id; "
                          "check that the table property write.wap.enabled is true")
    return staged


def merge_once(spark: SparkSession, catalog: Catalog, table: str, sql: str, batch_id: str,
               summary: dict[str, str], attempts: int = DEFAULT_ATTEMPTS) -> tuple[int | None, int]:
    """Run the MERGE `sql` on `table` once for batch_id. Returns (published snapshot id or None when
    the batch was already published, attempts used)."""
    spark_catalog = TableId.from_qualified(table)[0]
    for attempt in range(1, attempts + 1):
        if published_snapshot(_load(catalog, table), batch_id) is not None:
            log.info("batch %s is already published to %s; nothing to merge", batch_id, table)
            return None, attempt - 1
        try:
            staged = _stage_merge(spark, catalog, table, sql, batch_id, summary)
            failpoint(INGEST_BEFORE_PUBLISH)
            spark.sql(f"CALL {spark_catalog}.system.cherrypick_snapshot(table => '{table}', snapshot_id => {int(staged)})")
        except Exception as e:  # py4j/Spark wrap the Java exception; its class and message are in str(e)
            text = str(e)
            if DUPLICATE_PUBLISH in text:
                log.warning("batch %s was published to %s by a concurrent run", batch_id, table)
                return None, attempt
            if not any(marker in text for marker in RETRYABLE) or attempt == attempts:
                raise
            log.warning("batch %s: %s changed during the MERGE (attempt %d of %d: %s); merging again on the new state",
                        batch_id, table, attempt, attempts, text.splitlines()[0][:300])
            continue
        published = published_snapshot(_load(catalog, table), batch_id)
        if published is None:
            raise IngestError(f"batch {batch_id}: staged snapshot {staged} of {table} was cherry-picked but is not "
                              "among the current snapshot's ancestors")
        return published, attempt
    raise AssertionError("unreachable")
