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

commit_one_pass_with_master does the same for lakeops' one-pass streaming commit (the write-impact benchmark):
the files are appended and the property set in one pyiceberg transaction under the lock.

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

from lakeops.batches import BATCH_ID_PROPERTY, published_snapshot
from lakeops.catalog import load_catalog
from lakeops.config import LakeopsConfig
from lakeops.ingest.plan import IngestPlan
from lakeops.spark.commit import append_once, stage_batch
from lakeops.spark.ingest_events import (
    IngestResult,
    batch_summary,
    ensure_tables,
    event_columns,
    existing_files,
    parse_events,
)
from lakeops.spark.stage_events import write_staged_files
from lakeops.staging.commit import append_once as append_files_once
from lakeops.staging.manifest import data_file_from_dict
from lakeops.staging.plan import attempt_data_dir, batch_key
from lakeops.zonemap.build import complete, entries_for_snapshot, entry_from_metrics
from lakeops.zonemap.store import publish, to_arrow, zonemap_root

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table
    from pyspark.sql import DataFrame, SparkSession

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


def commit_one_pass_with_master(spark: SparkSession, catalog: Catalog, config: LakeopsConfig, table: str,
                                parsed: DataFrame, batch_id: str) -> tuple[IngestResult, float, float]:
    """lakeops' one-pass micro-batch commit (commit_events_one_pass) with the master in the data's commit instead of a
    micro zonemap after it: the same parse and file writes, the quarantine committed first, the zonemap entries of the
    new files built outside the lock (their snapshot id is not known before the commit: 0), then under the commit lock
    the master read, extended and written, and the files appended with the property pointing at it, in ONE pyiceberg
    transaction. Returns the result and the seconds waited for and held the lock."""
    spec = config.table(table)
    identifiers = (config.identifier(spec.name), config.identifier(spec.quarantine_name))
    events, quarantine = (catalog.load_table(i) for i in identifiers)
    key, attempt = batch_key(spec.name, batch_id), uuid.uuid4().hex[:12]
    data_dirs = {spec.name: attempt_data_dir(events.location(), key, 0, attempt),
                 spec.quarantine_name: attempt_data_dir(quarantine.location(), key, 0, attempt)}
    spark.sparkContext.setJobDescription(f"benchmark master-zonemap one pass {batch_id}")
    written = write_staged_files(spark, config, parsed, table, batch_id, events, quarantine, data_dirs,
                                 report_sources=True, cluster=False)
    good, bad = written.data_files.get(spec.name, []), written.data_files.get(spec.quarantine_name, [])
    rows, quarantined = sum(f["record_count"] for f in good), sum(f["record_count"] for f in bad)
    summary = batch_summary(rows, quarantined, len(written.source_files), None)
    if bad:
        append_files_once(catalog, identifiers[1], batch_id, bad, summary)
    partition_type = events.spec().partition_type(events.schema())
    data_files = [data_file_from_dict(f, partition_type) for f in good]
    z = spec.zonemap
    entries = [complete(events, entry_from_metrics(f, 0, events, z.columns), z.columns, z.bloom_columns, z.bloom_fpp)
               for f in data_files]
    asked = time.perf_counter()
    with commit_lock(config.qualified(table)):
        got = time.perf_counter()
        loaded = catalog.load_table(identifiers[0])
        types = {f.field_id: f.field_type for f in (loaded.schema().find_field(c) for c in z.columns)}
        new, old = to_arrow(entries, types), read_master(loaded)
        uri = publish(f"{zonemap_root(loaded.location())}/master/{uuid.uuid4().hex}.parquet",
                      new if old is None else pa.concat_tables([old, new]))
        with loaded.transaction() as tx:
            tx.set_properties({MASTER_PROPERTY: uri})
            with tx.update_snapshot(snapshot_properties={BATCH_ID_PROPERTY: batch_id, **summary}).fast_append() as append:
                for data_file in data_files:
                    append.append_data_file(data_file)
        held = time.perf_counter() - got
    snapshot = published_snapshot(catalog.load_table(identifiers[0]), batch_id)
    return IngestResult(batch_id, "committed", len(written.source_files), rows, quarantined, snapshot), got - asked, held


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
