"""Run a CDC batch: the interval's landed Debezium files, or the next offset range of the table's Kafka topic,
applied to the table exactly once (lakeops.spark.cdc_apply). Decisions (which files, which offsets, which id)
come from lakeops.ingest.plan and lakeops.ingest.kafka."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lakeops.batches import later_batch, published_snapshot
from lakeops.catalog import load_catalog
from lakeops.config import LakeopsConfig
from lakeops.exceptions import IngestError
from lakeops.ingest.plan import IngestPlan, check_ingest_mode
from lakeops.spark.cdc_apply import CdcResult, apply_changes, ensure_merge_on_read
from lakeops.spark.ingest_events import existing_files
from lakeops.spark.kafka_batch import plan_kafka_batch
from lakeops.spark.kafka_source import read_range

if TYPE_CHECKING:
    from pyiceberg.table import Table
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)

__all__ = ["CdcResult", "ensure_merge_on_read", "refuse_out_of_order", "run_cdc_ingest"]

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
    """Apply the plan's interval of landed files; for a table whose input is a Kafka topic, the topic's next
    offset range (the interval then only names the run)."""
    from pyspark.sql import functions as F

    check_ingest_mode(config, table, "batch")
    spec = config.table(table)
    catalog = load_catalog(config.catalog)
    if spec.ingest.kafka is not None:
        ensure_merge_on_read(spark, catalog, config, table)
        batch = plan_kafka_batch(spark, catalog, config, table)
        if not batch.offsets.records:
            log.info("batch %s: no new records in topic %s; nothing to apply", batch.batch_id, batch.offsets.topic)
            return CdcResult(batch.batch_id, "no_input")
        raw = read_range(spark, spec.ingest.kafka, batch.offsets).select("value", "source_file")
        return apply_changes(spark, catalog, config, table, raw, batch.batch_id, 0, batch.summary)
    spark.sparkContext.setJobDescription(f"lakeops cdc {plan.batch_id}: list landed files")
    files = existing_files(spark, plan.source_dirs)
    if not files:
        log.info("batch %s: no landed change files in %d folders; nothing to apply", plan.batch_id, len(plan.source_dirs))
        return CdcResult(plan.batch_id, "no_input")
    ensure_merge_on_read(spark, catalog, config, table)
    loaded = catalog.load_table(config.identifier(table))
    if published_snapshot(loaded, plan.batch_id) is not None:
        log.info("batch %s is already merged into %s; nothing to do", plan.batch_id, plan.table)
        return CdcResult(plan.batch_id, "already_committed", len(files))
    refuse_out_of_order(loaded, plan, spec.name, config.catalog.name)
    spark.sparkContext.setJobDescription(f"lakeops cdc {plan.batch_id}: read {len(files)} files")
    raw = spark.read.text(files).withColumn("source_file", F.input_file_name())
    return apply_changes(spark, catalog, config, table, raw, plan.batch_id, len(files))
