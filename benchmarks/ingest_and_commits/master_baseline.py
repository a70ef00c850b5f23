"""The baseline micro zonemaps replace: one master zonemap updated in every ingest commit.

Built here, for the benchmark only, as well as we could make it: each batch parses and stages
its rows exactly as lakeops' ingest does (write-audit-publish), computes the zonemap entries of
its new files outside any lock (the same entries_for_snapshot the micro zonemap uses, Bloom
filters included), then under the table's commit lock:

1. reads the current master (a Parquet file named by the table property lakeops.zonemap.master),
2. appends its entries (Arrow concatenation, no decoding of the old entries),
3. writes the new master under a fresh name,
4. publishes the staged batch and points the property at the new master in ONE Iceberg
   transaction (cherry-pick + property update).

The lock is what keeps the master whole under concurrent writers: Iceberg would retry the
property update on a conflict and silently drop the other writer's entries. It is also where
writers queue. It is a lock of this process (the benchmark's writers are threads); writers in
separate processes would need a catalog-level lock, which costs more, not less.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import uuid
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq

from lakeops.batches import published_snapshot
from lakeops.catalog import load_catalog
from lakeops.config import LakeopsConfig
from lakeops.ingest.plan import IngestPlan
from lakeops.spark.commit import append_once, stage_batch
from lakeops.spark.ingest_events import IngestResult, ensure_tables, event_columns, existing_files, parse_events
from lakeops.zonemap.build import entries_for_snapshot
from lakeops.zonemap.store import publish, to_arrow, zonemap_root

if TYPE_CHECKING:
    from pyiceberg.table import Table
    from pyspark.sql import SparkSession

    from lakeops.zonemap.entry import ZonemapEntry

log = logging.getLogger(__name__)

MASTER_PROPERTY = "lakeops.zonemap.master"
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def commit_lock(table: str) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(table, threading.Lock())


def read_master(table: Table) -> pa.Table | None:
    uri = table.properties.get(MASTER_PROPERTY)
    if not uri:
        return None
    with table.io.new_input(uri).open() as stream:
        return pq.read_table(stream)


def synthetic_entries(table: Table, columns: tuple[str, ...], bloom_columns: tuple[str, ...], count: int,
                      rows: int = 200, seed: int = 7) -> pa.Table:
    """`count` distinct entries shaped like those of small events files (one a 2-minute batch, `rows`
    events each): bounds on every indexed column and a Bloom filter of `rows` values on each Bloom
    column, as the master of a table that already holds `count` files would hold them."""
    from lakeops.config import ZonemapConfig
    from lakeops.zonemap.bloom import BloomFilter
    from lakeops.zonemap.entry import ColumnStats, ZonemapEntry
    from lakeops.zonemap.store import to_arrow

    rng = random.Random(seed)
    schema = table.schema()
    fields = [schema.find_field(c) for c in columns]
    blooms = {schema.find_field(c).field_id for c in bloom_columns}
    start_us = 1_763_000_000 * 1_000_000
    entries = []
    for i in range(count):
        first = start_us + i * 120_000_000
        stats, filters = {}, {}
        for field in fields:
            if str(field.field_type).startswith("timestamp"):
                stats[field.field_id] = ColumnStats(first, first + 120_000_000, 0)
            elif str(field.field_type) in ("int", "long"):
                values = [rng.randrange(1, 100_000) for _ in range(rows)]
                stats[field.field_id] = ColumnStats(min(values), max(values), 0)
                if field.field_id in blooms:
                    filters[field.field_id] = BloomFilter.build(values, ZonemapConfig.bloom_fpp)
            else:
                values = sorted(f"{field.name}-{rng.randrange(50):02d}" for _ in range(8))
                stats[field.field_id] = ColumnStats(values[0], values[-1], 0)
        entries.append(ZonemapEntry(f"{table.location()}/data/seed/{i:06d}.parquet", i, rows, 20_000 + rng.randrange(5000),
                                    f"event_time_day={i * 120 // 86400}", stats, filters))
    return to_arrow(entries, {f.field_id: f.field_type for f in fields})


def seed_master(table: Table, entries: pa.Table) -> str:
    """Start the master with existing entries (as a table that already holds many files would)."""
    uri = publish(f"{zonemap_root(table.location())}/master/{uuid.uuid4().hex}.parquet", entries)
    table.transaction().set_properties({MASTER_PROPERTY: uri}).commit_transaction()
    return uri


def publish_with_master(spark: SparkSession, config: LakeopsConfig, table_name: str, staged: int,
                        entries: list[ZonemapEntry]) -> tuple[float, float, int]:
    """Publish `staged` and the master holding `entries` in one commit, under the commit lock.
    Returns (seconds waited for the lock, seconds held, master entries after)."""
    catalog = load_catalog(config.catalog)
    qualified = config.qualified(table_name)
    asked = time.perf_counter()
    with commit_lock(qualified):
        got = time.perf_counter()
        table = catalog.load_table(config.identifier(table_name))
        spec = config.table(table_name)
        types = {f.field_id: f.field_type for f in (table.schema().find_field(c) for c in spec.zonemap.columns)}
        new = to_arrow(entries, types)
        old = read_master(table)
        master = new if old is None else pa.concat_tables([old, new])
        uri = publish(f"{zonemap_root(table.location())}/master/{uuid.uuid4().hex}.parquet", master)
        jtable = spark._jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, qualified)
        jtable.refresh()
        txn = jtable.newTransaction()
        txn.manageSnapshots().cherrypick(staged).commit()
        txn.updateProperties().set(MASTER_PROPERTY, uri).commit()
        txn.commitTransaction()
        held = time.perf_counter() - got
    return got - asked, held, master.num_rows


def ingest_with_master(spark: SparkSession, config: LakeopsConfig, table: str,
                       plan: IngestPlan) -> tuple[IngestResult, float, float]:
    """lakeops' ingest (run_ingest) step for step, with the master published in the data's commit.
    Returns the result and the seconds waited for and held the commit lock."""
    from pyspark.sql import functions as F

    files = existing_files(spark, plan.source_dirs)
    if not files:
        return IngestResult(plan.batch_id, "no_input"), 0.0, 0.0
    catalog = load_catalog(config.catalog)
    ensure_tables(spark, catalog, config, table)
    spark.sparkContext.setJobDescription(f"benchmark master-zonemap ingest {plan.batch_id}")
    raw = spark.read.text(files).withColumn("source_file", F.input_file_name())
    columns = event_columns(catalog.load_table(config.identifier(table)))
    parsed = parse_events(raw, columns).withColumn("ingested_at", F.current_timestamp()).cache()
    try:
        counts = {r["good"]: r["n"] for r in parsed.groupBy((F.col("reason").isNull()).alias("good")).count()
                  .withColumnRenamed("count", "n").collect()}
        rows, quarantined = counts.get(True, 0), counts.get(False, 0)
        summary = {"lakeops.rows": str(rows), "lakeops.quarantined": str(quarantined), "lakeops.files": str(len(files))}
        if quarantined:
            bad = parsed.where(F.col("reason").isNotNull()).select(
                F.lit(table).alias("table_name"), F.lit(plan.batch_id).alias("batch_id"), "source_file",
                F.col("value").alias("raw_line"), "reason", F.col("ingested_at").alias("quarantined_at"))
            append_once(spark, catalog, bad, plan.quarantine_table, plan.batch_id, summary)
        good = parsed.where(F.col("reason").isNull()).select(*[c.name for c in columns])
        staged = stage_batch(spark, catalog, good, plan.table, plan.batch_id, summary)
    finally:
        parsed.unpersist()
    spec = config.table(table)
    entries = entries_for_snapshot(catalog.load_table(config.identifier(table)), staged, spec.zonemap.columns,
                                   spec.zonemap.bloom_columns, spec.zonemap.bloom_fpp)
    waited, held, _ = publish_with_master(spark, config, table, staged, entries)
    snapshot = published_snapshot(catalog.load_table(config.identifier(table)), plan.batch_id)
    return IngestResult(plan.batch_id, "committed", len(files), rows, quarantined, snapshot), waited, held
