"""One ETL commit: write the data as a staged snapshot that carries the new watermarks in its
summary, then publish it. Nothing is visible before the publish; a crash in between leaves only
an unpublished snapshot, and the retry stages its own.

The run identity (wap id) names the table, the mode and the source snapshots read, so a retry
of work already published finds it and stops (Iceberg also refuses to publish it twice)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from lakeops.batches import published_snapshot
from lakeops.failpoints import ETL_AFTER_PUBLISH, ETL_BEFORE_PUBLISH, failpoint
from lakeops.spark.commit import publish_staged
from lakeops.watermark import watermark_key

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)
SNAPSHOT_PROPERTY_CONF = "spark.sql.iceberg.snapshot-property."


def stage(spark: SparkSession, catalog: Catalog, table: str, run_id: str, properties: dict[str, str],
          write: Callable[[str, dict[str, str]], None]) -> int | None:
    """Run write(run_id, properties) (an incremental run's replacement, a Spark overwrite or MERGE on `table`) as a
    snapshot staged under run_id, with properties in its summary: a Spark write stages it through the session's
    settings set here, a commit of Iceberg's Java API by the arguments. Returns the staged snapshot id, None when
    write committed nothing."""
    from lakeops.batches import staged_snapshot
    from lakeops.spark.commit import _metadata

    keys = [SNAPSHOT_PROPERTY_CONF + k for k in properties]
    for key, value in properties.items():
        spark.conf.set(SNAPSHOT_PROPERTY_CONF + key, value)
    spark.conf.set("spark.wap.id", run_id)
    try:
        write(run_id, properties)
    finally:
        spark.conf.unset("spark.wap.id")
        for key in keys:
            spark.conf.unset(key)
    return staged_snapshot(_metadata(catalog, table), run_id)


def commit_once(spark: SparkSession, catalog: Catalog, table: str, run_id: str, watermarks: dict[str, int],
                write: Callable[[str, dict[str, str]], None], extra: dict[str, str] | None = None,
                overwrite: bool = False) -> tuple[str, int | None]:
    """(status, snapshot id): committed | already_committed | empty. An incremental run published
    once is done for good; an overwrite (full, backfill) is skipped only while its snapshot is
    still the table's current one."""
    from lakeops.spark.commit import _metadata

    metadata = _metadata(catalog, table)
    done = published_snapshot(metadata, run_id)
    if done is not None:
        current_snapshot = metadata.current_snapshot()
        current = current_snapshot.snapshot_id if current_snapshot else None
        if not overwrite or done == current:
            log.info("ETL run %s is already committed to %s as snapshot %s; nothing to do", run_id, table, done)
            return "already_committed", done
        # An overwrite whose table changed since it landed (another overwrite, a delete) runs again,
        # under an identity naming the state it starts from.
        log.info("ETL run %s landed as %s but %s has changed since (now %s); recomputing", run_id, done, table, current)
        run_id = f"{run_id}#after-{current}"
    properties = {watermark_key(s): str(v) for s, v in watermarks.items()}
    properties.update(extra or {})
    properties["lakeops.etl-run"] = run_id
    staged = stage(spark, catalog, table, run_id, properties, write)
    if staged is None:
        return "empty", None
    failpoint(ETL_BEFORE_PUBLISH)
    published = publish_staged(spark, catalog, table, run_id, staged)
    failpoint(ETL_AFTER_PUBLISH)
    if published is None:
        return "already_committed", published_snapshot(_metadata(catalog, table), run_id)
    if published != staged:
        log.warning("ETL run %s on %s was cherry-picked as snapshot %s onto a newer state (staged as %s)",
                    run_id, table, published, staged)
    return "committed", published
