"""Run an events ingest batch: read the interval's landed files, split good rows from bad,
commit both exactly once. Decisions (which files, which id) come from lakeops.ingest.plan."""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from lakeops.batches import ROWS_PROPERTY, published_snapshot
from lakeops.catalog import load_catalog
from lakeops.config import IngestConfig, LakeopsConfig
from lakeops.failpoints import INGEST_BEFORE_PUBLISH
from lakeops.ingest.ddl import create_quarantine_sql, table_ddl
from lakeops.ingest.plan import IngestPlan, check_ingest_mode
from lakeops.phases import PhaseTimer, render_phases
from lakeops.spark.commit import append_once
from lakeops.spark.events_parse import INGESTED_AT, evolve_event_columns, parse_events
from lakeops.spark.kafka_batch import plan_kafka_batch
from lakeops.spark.kafka_source import read_range
from lakeops.spark.session import jvm
from lakeops.staging.plan import LandedFile
from lakeops.tables.effective import effective, zonemap_field_ids
from lakeops.tables.live import LiveColumn, live_columns

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table
    from pyspark.sql import Column, DataFrame, SparkSession

log = logging.getLogger(__name__)

WAP_PROPERTY = "write.wap.enabled"


@dataclass(frozen=True)
class IngestResult:
    batch_id: str
    status: str
    """committed | already_committed | no_input"""
    files: int = 0
    rows: int = 0
    quarantined: int = 0
    snapshot_id: int | None = None
    phases: dict[str, float] = field(default_factory=dict)
    """Wall seconds per phase (lakeops.phases): parse, quarantine, write, commit, zonemap."""

    def as_dict(self) -> dict:
        return asdict(self)


def ensure_tables(spark: SparkSession, catalog: Catalog, config: LakeopsConfig, table: str) -> None:
    """Create the table (from its config `create` block) and its quarantine table when they do not exist yet, and
    turn on write-audit-publish (write.wap.enabled) on an existing table that lacks it: batches are staged under
    their batch id and published once, which is what makes a retry append nothing twice."""
    spec = config.table(table)
    if not catalog.table_exists(config.identifier(spec.name)):
        statements = table_ddl(config, spec)
    else:
        statements = []
        if catalog.load_table(spec.name).properties.get(WAP_PROPERTY) != "true":
            log.info("table %s: setting %s = true, so each batch is staged under its id and published once", spec.name,
                     WAP_PROPERTY)
            statements.append(f"ALTER TABLE {config.qualified(spec.name)} SET TBLPROPERTIES ('{WAP_PROPERTY}' = 'true')")
        if not catalog.table_exists(config.identifier(spec.quarantine_name)):
            statements += [f"CREATE NAMESPACE IF NOT EXISTS {spec.id.spark_namespace(config.catalog.name)}",
                           create_quarantine_sql(config, spec)]
    for statement in statements:
        spark.sql(statement)


def event_columns(table: Table) -> tuple[LiveColumn, ...]:
    """The table's columns as the events ingest fills them, read from Iceberg."""
    return live_columns(table.schema())


def landed_files(spark: SparkSession, dirs: tuple[str, ...]) -> list[LandedFile]:
    """Data files (with sizes) in the given folders, through Hadoop's file system so any scheme works.
    Hidden files are skipped."""
    gateway = jvm(spark)
    hadoop_conf = spark.sparkContext._jsc.hadoopConfiguration()
    files = []
    for folder in dirs:
        path = gateway.org.apache.hadoop.fs.Path(folder)
        fs = path.getFileSystem(hadoop_conf)
        if not fs.exists(path):
            continue
        for status in fs.listStatus(path):
            name = status.getPath().getName()
            if status.isFile() and not name.startswith((".", "_")):
                files.append(LandedFile(status.getPath().toString(), int(status.getLen())))
    return sorted(files, key=lambda f: f.path)


def existing_files(spark: SparkSession, dirs: tuple[str, ...]) -> list[str]:
    """Paths of the data files in the given folders (landed_files without sizes)."""
    return [f.path for f in landed_files(spark, dirs)]


def write_zonemap_after_commit(catalog: Catalog, config: LakeopsConfig, table: str, snapshot_id: int,
                               missing_only: bool = False) -> None:
    """The micro zonemap of the committed batch. The batch is already durable: a failure here is
    logged, and the files stay candidates for every read until consolidation indexes them.
    missing_only: for a batch found already published (a rerun, a replayed micro-batch), whose first
    run may have died between its commit and its zonemap; an existing zonemap is kept."""
    from lakeops.zonemap.micro import micro_zonemap_uri, write_micro_zonemap

    try:
        loaded = catalog.load_table(config.identifier(table))
        spec = effective(config.table(table), loaded)
        if not spec.zonemap.columns:
            return
        zonemap_field_ids(spec, loaded)
        if missing_only and loaded.io.new_input(micro_zonemap_uri(loaded, snapshot_id)).exists():
            return
        write_micro_zonemap(loaded, spec, snapshot_id)
    except Exception:
        log.exception("zonemap for snapshot %s of %s was not written; reads will not prune its files until "
                      "consolidation indexes them", snapshot_id, table)


def parsed_lines(raw: DataFrame, columns: tuple[LiveColumn, ...], ingest: IngestConfig | None = None) -> DataFrame:
    """raw(value, source_file), parsed (parse_events with the table's ingest settings) and stamped with ingested_at."""
    from pyspark.sql import functions as F

    return parse_events(raw, columns, ingest).withColumn(INGESTED_AT, F.current_timestamp())


def landed_lines(spark: SparkSession, files: list[str]) -> DataFrame:
    """The landed lines of `files`: (value, source_file)."""
    from pyspark.sql import functions as F

    return spark.read.text(files).withColumn("source_file", F.input_file_name())


def read_landed(spark: SparkSession, files: list[str], columns: tuple[LiveColumn, ...],
                ingest: IngestConfig | None = None) -> DataFrame:
    """The landed lines of `files`, parsed and stamped (parsed_lines)."""
    return parsed_lines(landed_lines(spark, files), columns, ingest)


def current_columns(spark: SparkSession, catalog: Catalog, config: LakeopsConfig, table: str, raw: DataFrame
                    ) -> tuple[LiveColumn, ...]:
    """The table's columns for a batch of lines `raw`, after adding the ones the table's policy adds
    (evolve: add_columns)."""
    columns = event_columns(catalog.load_table(config.identifier(table)))
    if evolve_event_columns(spark, config.qualified(table), raw, columns, config.table(table).ingest):
        columns = event_columns(catalog.load_table(config.identifier(table)))
    return columns


def count_rows(parsed: DataFrame) -> tuple[int, int, int]:
    """(good rows, rows to quarantine, source files) of a parsed batch, in one pass."""
    from pyspark.sql import functions as F

    counts = parsed.agg(F.count_if(F.col("reason").isNull()).alias("good"),
                        F.count_if(F.col("reason").isNotNull()).alias("bad"),
                        F.countDistinct("source_file").alias("files")).collect()[0]
    return int(counts["good"]), int(counts["bad"]), int(counts["files"])


def good_rows(parsed: DataFrame, columns: tuple[LiveColumn, ...]) -> DataFrame:
    from pyspark.sql import functions as F

    return parsed.where(F.col("reason").isNull()).select(*[F.col(f"`{c.name}`") for c in columns])


def quarantine_columns(table: str, batch_id: str) -> list[Column]:
    """The quarantine table's columns of a parsed row: the raw line, its file and the reason."""
    from pyspark.sql import functions as F

    return [F.lit(table).alias("table_name"), F.lit(batch_id).alias("batch_id"), F.col("source_file"),
            F.col("value").alias("raw_line"), F.col("reason"), F.col("ingested_at").alias("quarantined_at")]


def quarantine_rows(parsed: DataFrame, table: str, batch_id: str) -> DataFrame:
    from pyspark.sql import functions as F

    return parsed.where(F.col("reason").isNotNull()).select(*quarantine_columns(table, batch_id))


def batch_summary(rows: int, quarantined: int, files: int, extra: dict[str, str] | None = None) -> dict[str, str]:
    """What every commit of a batch carries in its snapshot summary, beside its batch id (extra: e.g. Kafka offsets)."""
    return {ROWS_PROPERTY: str(rows), "lakeops.quarantined": str(quarantined), "lakeops.files": str(files), **(extra or {})}


def run_ingest(spark: SparkSession, config: LakeopsConfig, table: str, plan: IngestPlan,
               files: list[str] | None = None) -> IngestResult:
    """Ingest the plan's interval, or only `files` of it when given (a share of a split interval,
    under its own batch id)."""
    check_ingest_mode(config, table, "batch")
    if config.table(table).ingest.kafka is not None:
        return run_kafka_ingest(spark, config, table)
    spark.sparkContext.setJobDescription(f"lakeops ingest {plan.batch_id}: list landed files")
    files = existing_files(spark, plan.source_dirs) if files is None else files
    if not files:
        log.info("batch %s: no landed files in %d folders (%s .. %s); nothing to ingest",
                 plan.batch_id, len(plan.source_dirs), plan.source_dirs[:1], plan.source_dirs[-1:])
        return IngestResult(plan.batch_id, "no_input")
    catalog = load_catalog(config.catalog)
    ensure_tables(spark, catalog, config, table)
    # Quarantine rows are published before good rows, so a published events batch is a finished batch.
    published = published_snapshot(catalog.load_table(config.identifier(table)), plan.batch_id)
    if published is not None:
        log.info("batch %s is already committed to %s; nothing to do", plan.batch_id, plan.table)
        write_zonemap_after_commit(catalog, config, table, published, missing_only=True)
        return IngestResult(plan.batch_id, "already_committed", len(files))
    log.info("batch %s: reading %d files", plan.batch_id, len(files))
    spark.sparkContext.setJobDescription(f"lakeops ingest {plan.batch_id}: parse {len(files)} files")
    raw = landed_lines(spark, files)
    columns = current_columns(spark, catalog, config, table, raw)
    return commit_events(spark, catalog, config, table, parsed_lines(raw, columns, config.table(table).ingest),
                         plan.batch_id, columns, len(files))


def run_kafka_ingest(spark: SparkSession, config: LakeopsConfig, table: str) -> IngestResult:
    """The next offset range of the table's Kafka topic, appended exactly once; the commits carry the end offsets."""
    catalog = load_catalog(config.catalog)
    ensure_tables(spark, catalog, config, table)
    source = config.table(table).ingest.kafka
    assert source is not None
    batch = plan_kafka_batch(spark, catalog, config, table)
    if not batch.offsets.records:
        log.info("batch %s: no new records in topic %s; nothing to ingest", batch.batch_id, source.topic)
        return IngestResult(batch.batch_id, "no_input")
    if published_snapshot(catalog.load_table(config.identifier(table)), batch.batch_id) is not None:
        return IngestResult(batch.batch_id, "already_committed")
    raw = read_range(spark, source, batch.offsets).where("value IS NOT NULL").select("value", "source_file")
    columns = current_columns(spark, catalog, config, table, raw)
    return commit_events(spark, catalog, config, table, parsed_lines(raw, columns, config.table(table).ingest),
                         batch.batch_id, columns, 0, batch.summary)


def commit_events(spark: SparkSession, catalog: Catalog, config: LakeopsConfig, table: str, parsed: DataFrame,
                  batch_id: str, columns: tuple[LiveColumn, ...], files: int | None = None,
                  extra_summary: dict[str, str] | None = None) -> IngestResult:
    """Commit parsed lines (parse_events + ingested_at) as batch batch_id, exactly once: bad lines to
    the quarantine first, then the good rows, then the micro zonemap. `files` None: counted from the
    rows. Shared by batch ingest and every micro-batch of the streaming query."""
    spark.sparkContext.setJobDescription(f"lakeops ingest {batch_id}: parse and count")
    from pyspark.sql import functions as F

    timer = PhaseTimer()
    # Cached: counting and the two writes read the input once. Unpersisted below. Only quarantined rows keep
    # their raw line: the cache holds typed columns, not every line twice.
    parsed = parsed.withColumn("value", F.when(F.col("reason").isNotNull(), F.col("value"))).cache()
    try:
        with timer.phase("parse"):
            rows, quarantined, counted_files = count_rows(parsed)
        files = counted_files if files is None else files
        log.info("batch %s: %d files, %d good rows, %d rows to quarantine", batch_id, files, rows, quarantined)
        summary = batch_summary(rows, quarantined, files, extra_summary)
        if quarantined:
            spark.sparkContext.setJobDescription(f"lakeops ingest {batch_id}: quarantine {quarantined} rows")
            quarantine = config.qualified(config.table(table).quarantine_name)
            bad = quarantine_rows(parsed, config.identifier(table), batch_id)
            with timer.phase("quarantine"):
                first = append_once(spark, catalog, bad, quarantine, batch_id, summary)
            if first is None and not rows:
                return IngestResult(batch_id, "already_committed", files)  # a batch of bad lines only, published before
        snapshot = None
        if rows:
            spark.sparkContext.setJobDescription(f"lakeops ingest {batch_id}: commit {rows} rows")
            snapshot = append_once(spark, catalog, good_rows(parsed, columns), config.qualified(table), batch_id,
                                   summary, INGEST_BEFORE_PUBLISH, timer)
            if snapshot is None:  # an earlier or concurrent run of the same batch published it
                published = published_snapshot(catalog.load_table(config.identifier(table)), batch_id)
                if published is not None:
                    write_zonemap_after_commit(catalog, config, table, published, missing_only=True)
                return IngestResult(batch_id, "already_committed", files)
    finally:
        parsed.unpersist()
    if snapshot is not None:
        with timer.phase("zonemap"):
            write_zonemap_after_commit(catalog, config, table, snapshot)
    log.info("batch %s: committed %d rows (snapshot %s), quarantined %d; %s", batch_id, rows, snapshot, quarantined,
             render_phases(timer.seconds))
    return IngestResult(batch_id, "committed", files, rows, quarantined, snapshot, timer.seconds)
