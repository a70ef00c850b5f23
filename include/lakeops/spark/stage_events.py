"""One staged writer: parse this writer's share of an interval's landed files and write its good
rows (events) and bad rows (quarantine) as Iceberg data files into the tables' staging area, then
publish a manifest of what it wrote. It commits nothing; lakeops.staging.commit does, once for all
writers. Decisions (the share, the paths) come from lakeops.staging.plan."""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from lakeops.batches import batch_committed
from lakeops.catalog import load_catalog
from lakeops.config import LakeopsConfig
from lakeops.failpoints import WRITER_BEFORE_MANIFEST, failpoint
from lakeops.ingest.plan import IngestPlan
from lakeops.spark.ingest_events import (count_rows, ensure_tables, good_rows, landed_files, quarantine_rows,
                                         read_landed)
from lakeops.staging import store
from lakeops.staging.arrow_files import OUTPUT_SCHEMA, data_file_writer
from lakeops.staging.manifest import WriterManifest
from lakeops.staging.plan import (attempt_data_dir, batch_key, listing_digest, manifest_uri, partition_value_sql,
                                  started_uri, writer_share)

if TYPE_CHECKING:
    from pyiceberg.table import Table
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger(__name__)
WRITE_DATA_PATH = "write.data.path"


@dataclass(frozen=True)
class StageResult:
    batch_id: str
    writer: int
    writers: int
    status: str
    """staged | already_committed"""
    listed_files: int = 0
    files: int = 0
    rows: int = 0
    quarantined: int = 0
    data_files: int = 0
    manifest: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def write_data_files(spark: SparkSession, config: LakeopsConfig, df: DataFrame, table: Table, data_dir: str,
                     sort_by: tuple[str, ...] = ()) -> list[dict]:
    """Write df as data files of `table` under data_dir, one partition per file, sorted by sort_by
    within each; returns them as data_file_to_dict data. Commits nothing."""
    from pyspark.sql import functions as F

    schema, spec = table.schema(), table.spec()
    columns = []
    for i, field in enumerate(spec.fields):
        source = schema.find_column_name(field.source_id)
        columns.append(f"_lakeops_partition_{i}")
        df = df.withColumn(columns[-1], F.expr(partition_value_sql(str(field.transform), str(source), config.catalog.name)))
    if columns:
        df = df.repartition(*columns)
    if columns or sort_by:
        df = df.sortWithinPartitions(*columns, *sort_by)
    metadata = table.metadata.model_copy(update={"properties": {**table.metadata.properties, WRITE_DATA_PATH: data_dir}})
    written = df.mapInArrow(data_file_writer(metadata.model_dump_json(), config.catalog, columns), OUTPUT_SCHEMA).collect()
    return [json.loads(row.data_file) for row in written]


def run_stage(spark: SparkSession, config: LakeopsConfig, table: str, plan: IngestPlan, writer: int,
              writers: int) -> StageResult:
    spec = config.table(table)
    key = batch_key(spec.name, plan.batch_id)
    spark.sparkContext.setJobDescription(f"lakeops stage {plan.batch_id} writer {writer}/{writers}: list landed files")
    listing = landed_files(spark, plan.source_dirs)
    share = writer_share(listing, writer, writers)
    catalog = load_catalog(config.catalog)
    # Even an empty share publishes a manifest, so the committer can tell "nothing to do" from "not done".
    ensure_tables(spark, catalog, config, table)
    events = catalog.load_table(config.identifier(spec.name))
    quarantine = catalog.load_table(config.identifier(spec.quarantine_name))
    if batch_committed(events, quarantine, plan.batch_id):
        log.info("batch %s is already committed to %s; writer %d has nothing to do", plan.batch_id, plan.table, writer)
        return StageResult(plan.batch_id, writer, writers, "already_committed", len(listing), len(share))
    attempt = uuid.uuid4().hex[:12]
    data_dirs = {spec.name: attempt_data_dir(events.location(), key, writer, attempt),
                 spec.quarantine_name: attempt_data_dir(quarantine.location(), key, writer, attempt)}
    store.write_text(started_uri(events.location(), key, writer, attempt),
                     json.dumps({"batch_id": plan.batch_id, "writer": writer, "attempt": attempt, "data_dirs": data_dirs}))
    log.info("batch %s writer %d/%d (attempt %s): %d of %d landed files", plan.batch_id, writer, writers, attempt,
             len(share), len(listing))
    rows = quarantined = 0
    written: dict[str, tuple[dict, ...]] = {}
    if share:
        spark.sparkContext.setJobDescription(f"lakeops stage {plan.batch_id} writer {writer}: parse {len(share)} files")
        parsed = read_landed(spark, share)
        try:
            rows, quarantined = count_rows(parsed)
            log.info("batch %s writer %d: %d good rows, %d rows to quarantine", plan.batch_id, writer, rows, quarantined)
            if rows:
                spark.sparkContext.setJobDescription(f"lakeops stage {plan.batch_id} writer {writer}: write {rows} rows")
                written[spec.name] = tuple(write_data_files(spark, config, good_rows(parsed), events,
                                                            data_dirs[spec.name], spec.sort_by))
            if quarantined:
                spark.sparkContext.setJobDescription(f"lakeops stage {plan.batch_id} writer {writer}: write {quarantined} bad rows")
                written[spec.quarantine_name] = tuple(write_data_files(
                    spark, config, quarantine_rows(parsed, spec.name, plan.batch_id), quarantine, data_dirs[spec.quarantine_name]))
        finally:
            parsed.unpersist()
    data_files = sum(len(f) for f in written.values())
    log.info("batch %s writer %d: wrote %d data files (%d rows, %d quarantined)", plan.batch_id, writer, data_files,
             rows, quarantined)
    failpoint(WRITER_BEFORE_MANIFEST)
    manifest = WriterManifest(plan.batch_id, writer, writers, attempt, len(listing), listing_digest(listing),
                              tuple(share), rows, quarantined, written)
    uri = manifest_uri(events.location(), key, writer)
    store.publish_text(uri, manifest.to_json())
    log.info("batch %s writer %d: published its manifest %s", plan.batch_id, writer, uri)
    return StageResult(plan.batch_id, writer, writers, "staged", len(listing), len(share), rows, quarantined, data_files, uri)
