"""Run a CDC batch: read the interval's landed Debezium files, quarantine malformed envelopes,
reduce the good changes to the last one per key in source order and MERGE them (merge-on-read),
exactly once. Decisions (which files, which id) come from lakeops.ingest.plan."""

from __future__ import annotations

import logging
import uuid
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from lakeops.batches import later_batch, published_snapshot
from lakeops.catalog import load_catalog
from lakeops.cdc.sql import MERGE_ON_READ_PROPERTIES, OP, cdc_key, merge_sql
from lakeops.config import LakeopsConfig
from lakeops.exceptions import IngestError
from lakeops.ingest.plan import IngestPlan
from lakeops.spark.cdc_parse import last_change_per_key, parse_changes
from lakeops.spark.commit import append_once
from lakeops.spark.ingest_events import ensure_tables, existing_files, write_zonemap_after_commit
from lakeops.spark.merge_commit import merge_once
from lakeops.sql_literals import properties
from lakeops.tables.live import key_columns, live_columns, resolve_columns

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CdcResult:
    batch_id: str
    status: str
    """committed | already_committed | no_input"""
    files: int = 0
    changes: int = 0
    keys: int = 0
    """Distinct keys the MERGE applied (one change per key after the reduction)."""
    deletes: int = 0
    quarantined: int = 0
    snapshot_id: int | None = None
    attempts: int = 0
    """MERGE attempts: more than one when another commit (a compaction) moved the table in between."""

    def as_dict(self) -> dict:
        return asdict(self)


def ensure_merge_on_read(spark: SparkSession, catalog: Catalog, config: LakeopsConfig, table: str) -> None:
    """Create the table and its quarantine if missing, and set the merge-on-read write modes once."""
    ensure_tables(spark, catalog, config, table)
    props = catalog.load_table(config.identifier(table)).properties
    missing = {k: v for k, v in MERGE_ON_READ_PROPERTIES.items() if props.get(k) != v}
    if missing:
        spark.sql(f"ALTER TABLE {config.qualified(table)} SET TBLPROPERTIES ({properties(missing)})")


def refuse_out_of_order(loaded: Table, plan: IngestPlan, table: str, spark_catalog: str) -> None:
    """Changes apply in source order: an interval older than one already merged would overwrite
    newer values and bring deleted keys back, so it is refused with the way to apply it."""
    later = later_batch(loaded, table, plan.start)
    if later is None:
        return
    rollback = (f"CALL {spark_catalog}.system.rollback_to_snapshot('{plan.table}', {later.parent_id})"
                if later.parent_id is not None else f"recreate {plan.table}")
    raise IngestError(
        f"batch {plan.batch_id} is older than batch {later.batch_id}, already merged into {plan.table} "
        f"(snapshot {later.snapshot_id}): merging older changes after newer ones would overwrite newer values and "
        f"bring deleted keys back. CDC intervals apply in source order. To apply this interval, roll the table back "
        f"to the snapshot before that batch ({rollback}) and re-run the intervals from {plan.start.isoformat()} on, "
        "in order (the table's ingest DAG runs one interval at a time).")


def run_cdc_ingest(spark: SparkSession, config: LakeopsConfig, table: str, plan: IngestPlan) -> CdcResult:
    from pyspark.sql import functions as F

    spec = config.table(table)
    spark.sparkContext.setJobDescription(f"lakeops cdc {plan.batch_id}: list landed files")
    files = existing_files(spark, plan.source_dirs)
    if not files:
        log.info("batch %s: no landed change files in %d folders; nothing to apply", plan.batch_id, len(plan.source_dirs))
        return CdcResult(plan.batch_id, "no_input")
    catalog = load_catalog(config.catalog)
    ensure_merge_on_read(spark, catalog, config, table)
    loaded = catalog.load_table(config.identifier(table))
    if published_snapshot(loaded, plan.batch_id) is not None:
        log.info("batch %s is already merged into %s; nothing to do", plan.batch_id, plan.table)
        return CdcResult(plan.batch_id, "already_committed", len(files))
    refuse_out_of_order(loaded, plan, spec.name, config.catalog.name)
    columns = live_columns(loaded.schema())
    key = cdc_key(spec.key, key_columns(loaded), spec.name)
    resolve_columns(loaded.schema(), key, "key", spec.name)
    spark.sparkContext.setJobDescription(f"lakeops cdc {plan.batch_id}: parse {len(files)} files")
    raw = spark.read.text(files).withColumn("source_file", F.input_file_name())
    parsed = parse_changes(raw, columns).cache()
    try:
        counts = {r["good"]: r["n"] for r in parsed.groupBy(F.col("reason").isNull().alias("good")).count()
                  .withColumnRenamed("count", "n").collect()}
        changes, quarantined = counts.get(True, 0), counts.get(False, 0)
        log.info("batch %s: %d good changes, %d envelopes to quarantine", plan.batch_id, changes, quarantined)
        summary = {"lakeops.rows": str(changes), "lakeops.quarantined": str(quarantined), "lakeops.files": str(len(files))}
        if quarantined:
            spark.sparkContext.setJobDescription(f"lakeops cdc {plan.batch_id}: quarantine {quarantined} envelopes")
            bad = parsed.where(F.col("reason").isNotNull()).select(
                F.lit(spec.name).alias("table_name"), F.lit(plan.batch_id).alias("batch_id"), "source_file",
                F.col("value").alias("raw_line"), "reason", F.current_timestamp().alias("quarantined_at"))
            append_once(spark, catalog, bad, plan.quarantine_table, plan.batch_id, summary)
        if not changes:
            return CdcResult(plan.batch_id, "committed", len(files), 0, 0, 0, quarantined)
        latest = last_change_per_key(parsed.where(F.col("reason").isNull()), key).cache()
        try:
            keys = latest.count()
            deletes = latest.where(F.col(OP) == "d").count()
            view = f"lakeops_cdc_{spec.id.slug}_{uuid.uuid4().hex[:8]}".replace("-", "_")
            latest.createOrReplaceTempView(view)
            spark.sparkContext.setJobDescription(f"lakeops cdc {plan.batch_id}: merge {keys} keys ({deletes} deletes)")
            summary.update({"lakeops.keys": str(keys), "lakeops.deletes": str(deletes)})
            try:
                sql = merge_sql(plan.table, view, tuple(c.name for c in columns), key)
                snapshot, attempts = merge_once(spark, catalog, plan.table, sql,
                                                plan.batch_id, summary)
            finally:
                spark.catalog.dropTempView(view)
        finally:
            latest.unpersist()
    finally:
        parsed.unpersist()
    if snapshot is None:
        return CdcResult(plan.batch_id, "already_committed", len(files), attempts=attempts)
    write_zonemap_after_commit(catalog, config, table, snapshot)
    log.info("batch %s: merged %d changes over %d keys (%d deletes) into %s, snapshot %s, %d attempt(s); quarantined %d",
             plan.batch_id, changes, keys, deletes, plan.table, snapshot, attempts, quarantined)
    return CdcResult(plan.batch_id, "committed", len(files), changes, keys, deletes, quarantined, snapshot, attempts)
