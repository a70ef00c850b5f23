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
from lakeops.ingest.plan import IngestPlan, check_ingest_mode
from lakeops.spark.ingest_events import (
    current_columns,
    ensure_tables,
    event_columns,
    landed_files,
    landed_lines,
    quarantine_columns,
    read_landed,
)
from lakeops.staging import store
from lakeops.staging.arrow_files import OUTPUT_SCHEMA, Target, data_file_writer
from lakeops.staging.manifest import WriterManifest
from lakeops.staging.plan import (
    attempt_data_dir,
    batch_key,
    listing_digest,
    manifest_uri,
    partition_value_sql,
    started_uri,
    writer_share,
)

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


def partition_columns(config: LakeopsConfig, table: Table, prefix: str) -> dict[str, str]:
    """Column name -> Spark SQL of the value Iceberg stores, one per partition field of the table."""
    schema = table.schema()
    return {f"{prefix}{i}": partition_value_sql(str(f.transform), str(schema.find_column_name(f.source_id)), config.catalog.name)
            for i, f in enumerate(table.spec().fields)}


def _target(name: str, table: Table, data_dir: str, good_rows: bool, columns: dict[str, str]) -> Target:
    metadata = table.metadata.model_copy(update={"properties": {**table.metadata.properties, WRITE_DATA_PATH: data_dir}})
    return Target(name, metadata.model_dump_json(), good_rows, tuple(columns))


@dataclass(frozen=True)
class StagedFiles:
    data_files: dict[str, list[dict]]
    """Table name -> data_file_to_dict data of the files written for it."""
    source_files: frozenset[str]
    """The landed files the rows came from."""


def write_staged_files(spark: SparkSession, config: LakeopsConfig, parsed: DataFrame, table: str, batch_id: str,
                       events: Table, quarantine: Table, data_dirs: dict[str, str], report_sources: bool = False,
                       cluster: bool = True) -> StagedFiles:
    """One pass over the parsed rows: good rows become data files of `events` (sorted by its partitions and
    the table's sort order), bad rows data files of `quarantine`. Commits nothing. cluster: shuffle the rows by
    partition first, so each partition value gets one file per target size (its rows are then written by one
    task); else each task writes its own rows, in parallel, a file per partition value it holds.
    report_sources: name the landed files read (source_files; else empty)."""
    from pyspark.sql import functions as F

    from lakeops.tables.live import sort_columns

    spec = config.table(table)
    columns = partition_columns(config, events, "_lakeops_partition_")
    # Both tables' columns side by side (reason among the quarantine's); the writer picks each table's.
    rows = parsed.select(*[F.col(f"`{c.name}`") for c in event_columns(events)], *quarantine_columns(spec.name, batch_id),
                         *[F.expr(sql).alias(name) for name, sql in columns.items()])
    if columns and cluster:
        rows = rows.repartition(*columns)
    order = [F.col(c) for c in columns] + [F.col(f"`{c}`") for c in sort_columns(events)]
    if order:  # a table with neither partitions nor a sort order keeps the lines' order
        rows = rows.sortWithinPartitions(*order)
    targets = [_target(spec.name, events, data_dirs[spec.name], True, columns),
               _target(spec.quarantine_name, quarantine, data_dirs[spec.quarantine_name], False, {})]
    written: dict[str, list[dict]] = {t.name: [] for t in targets}
    sources: set[str] = set()
    for row in rows.mapInArrow(data_file_writer(targets, config.catalog, report_sources), OUTPUT_SCHEMA).collect():
        written[row.target].append(json.loads(row.data_file))
        sources.update(row.source_files)
    return StagedFiles(written, frozenset(sources))


def run_stage(spark: SparkSession, config: LakeopsConfig, table: str, plan: IngestPlan, writer: int,
              writers: int) -> StageResult:
    check_ingest_mode(config, table, "batch")
    spec = config.table(table)
    key = batch_key(spec.name, plan.batch_id)
    spark.sparkContext.setJobDescription(f"lakeops stage {plan.batch_id} writer {writer}/{writers}: list landed files")
    listing = landed_files(spark, plan.source_dirs)
    share = writer_share(listing, writer, writers)
    catalog = load_catalog(config.catalog)
    # Even an empty share publishes a manifest, so the committer can tell "nothing to do" from "not done".
    ensure_tables(spark, catalog, config, table)
    if share:  # evolve: add_columns adds the columns the share's lines need before the writer reads the schema
        current_columns(spark, catalog, config, table, landed_lines(spark, share))
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
    written: dict[str, list[dict]] = {}
    if share:
        spark.sparkContext.setJobDescription(f"lakeops stage {plan.batch_id} writer {writer}: parse and write {len(share)} files")
        parsed = read_landed(spark, share, event_columns(events), spec.ingest)
        written = write_staged_files(spark, config, parsed, table, plan.batch_id, events, quarantine, data_dirs).data_files
    rows = sum(f["record_count"] for f in written.get(spec.name, []))
    quarantined = sum(f["record_count"] for f in written.get(spec.quarantine_name, []))
    data_files = sum(len(f) for f in written.values())
    log.info("batch %s writer %d: wrote %d data files (%d rows, %d to quarantine)", plan.batch_id, writer, data_files,
             rows, quarantined)
    failpoint(WRITER_BEFORE_MANIFEST)
    manifest = WriterManifest(plan.batch_id, writer, writers, attempt, len(listing), listing_digest(listing),
                              tuple(share), rows, quarantined, {name: tuple(files) for name, files in written.items() if files})
    uri = manifest_uri(events.location(), key, writer)
    store.publish_text(uri, manifest.to_json())
    log.info("batch %s writer %d: published its manifest %s", plan.batch_id, writer, uri)
    return StageResult(plan.batch_id, writer, writers, "staged", len(listing), len(share), rows, quarantined, data_files, uri)
