"""Apply one batch of Debezium records (landed lines, a Kafka offset range or a streaming micro-batch) to a keyed
table, exactly once: decode, add or widen columns when the table's policy says evolve: add_columns, quarantine
what cannot be applied, count and skip tombstones, key records and transaction markers, handle truncates by the
table's policy, reduce to the last change of every key in source order and MERGE (merge-on-read) under the batch
id. Decisions come from lakeops.cdc (decoding, truncates) and lakeops.ingest.evolve (columns)."""

from __future__ import annotations

import logging
import uuid
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from lakeops.cdc.decode import CHANGE, INVALID, SKIPPED, TRUNCATE
from lakeops.cdc.sql import KIND, LSN, MERGE_ON_READ_PROPERTIES, NEW_FIELDS, OP, UNAVAILABLE, cdc_key, merge_sql
from lakeops.cdc.truncate import plan_truncates, quarantine_reason
from lakeops.cdc.unavailable import orphan_reason
from lakeops.config import LakeopsConfig
from lakeops.ingest.evolve import plan_column_changes
from lakeops.spark.cdc_parse import last_change_per_key, parse_changes
from lakeops.spark.commit import append_once
from lakeops.spark.ingest_events import ensure_tables, write_zonemap_after_commit
from lakeops.spark.merge_commit import merge_once
from lakeops.sql_literals import properties
from lakeops.tables.live import key_columns, live_columns, resolve_columns

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyspark.sql import DataFrame, SparkSession

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
    skipped: int = 0
    """Tombstones, key records, transaction markers, heartbeats: counted, never applied or quarantined."""
    truncates: int = 0
    columns_changed: list[str] = field(default_factory=list)
    """Columns added or widened before the batch (evolve: add_columns)."""

    def as_dict(self) -> dict:
        return asdict(self)


def ensure_merge_on_read(spark: SparkSession, catalog: Catalog, config: LakeopsConfig, table: str) -> None:
    """Create the table and its quarantine if missing, and set the merge-on-read write modes once."""
    ensure_tables(spark, catalog, config, table)
    props = catalog.load_table(config.identifier(table)).properties
    missing = {k: v for k, v in MERGE_ON_READ_PROPERTIES.items() if props.get(k) != v}
    if missing:
        spark.sql(f"ALTER TABLE {config.qualified(table)} SET TBLPROPERTIES ({properties(missing)})")


def _parse(spark: SparkSession, catalog: Catalog, config: LakeopsConfig, table: str, raw: DataFrame
           ) -> tuple[DataFrame, tuple, tuple[str, ...], list[str]]:
    """The decoded batch (cached), the table's columns, its key and the columns changed to fit the batch."""
    from pyspark.sql import functions as F

    spec = config.table(table)
    loaded = catalog.load_table(config.identifier(table))
    key = cdc_key(spec.key, key_columns(loaded), spec.name)
    resolve_columns(loaded.schema(), key, "key", spec.name)
    policy = spec.ingest.unknown_field_policy
    columns = live_columns(loaded.schema())
    parsed = parse_changes(raw, columns, key, spec.ingest.cdc, policy, spec.name).cache()
    if policy != "add_columns":
        return parsed, columns, key, []
    observed = [(r["name"], r["type"]) for r in parsed.select(F.explode(NEW_FIELDS).alias("f"))
                .select("f.name", "f.type").distinct().collect()]
    changes = plan_column_changes(columns, observed)
    if not changes:
        return parsed, columns, key, []
    for change in changes:
        log.info("table %s: %s column %s %s (evolve: add_columns)", spec.name, change.kind, change.column, change.sql_type)
        spark.sql(change.sql(config.qualified(table)))
    parsed.unpersist()
    columns = live_columns(catalog.load_table(config.identifier(table)).schema())
    parsed = parse_changes(raw, columns, key, spec.ingest.cdc, policy, spec.name).cache()
    return parsed, columns, key, [f"{c.kind} {c.column} {c.sql_type}" for c in changes]


def _set_aside_unsent(spark: SparkSession, config: LakeopsConfig, table: str, latest: DataFrame, key: tuple[str, ...],
                      everything_deleted: bool, held: list[DataFrame]) -> tuple[DataFrame, DataFrame, int]:
    """The last changes whose unsent columns (Debezium's placeholder, not filled by an earlier change of the batch)
    have no stored row to keep the value from: they cannot be inserted. Returns the changes to merge (cached), those
    set aside as quarantine rows (source_file, value, reason) and how many; frames cached for the batch are added to
    `held`. everything_deleted: an applied truncate empties the table first, so no row is stored."""
    from pyspark.sql import functions as F

    spec = config.table(table)
    unsent = latest.where((F.size(UNAVAILABLE) > 0) & (F.col(OP) != "d"))
    if not everything_deleted:
        stored = spark.table(config.qualified(table)).select(*key)
        unsent = unsent.join(stored, list(key), "left_anti")
    unsent = unsent.cache()
    held.append(unsent)
    count = unsent.count()
    if not count:
        return latest, unsent.select("source_file", "value", F.lit(None).cast("string").alias("reason")), 0
    before, after = orphan_reason(spec.name, spec.ingest.cdc.unavailable_value_placeholder)
    named = F.array_join(F.transform(F.col(UNAVAILABLE), lambda c: F.concat(F.lit("after."), c)), ", ")
    rows = unsent.select("source_file", "value", F.concat(F.lit(before), named, F.lit(after)).alias("reason"))
    merged = latest.join(unsent.select(*key), list(key), "left_anti").cache()
    latest.unpersist()
    return merged, rows, count


def apply_changes(spark: SparkSession, catalog: Catalog, config: LakeopsConfig, table: str, raw: DataFrame,
                  batch_id: str, files: int, extra_summary: dict[str, str] | None = None) -> CdcResult:
    """raw(value, source_file) applied as batch `batch_id`; extra_summary (e.g. Kafka offsets) goes into both
    commits' snapshot summaries."""
    from pyspark.sql import functions as F

    spec = config.table(table)
    ensure_merge_on_read(spark, catalog, config, table)
    spark.sparkContext.setJobDescription(f"lakeops cdc {batch_id}: decode")
    parsed, columns, key, changed = _parse(spark, catalog, config, table, raw)
    held: list[DataFrame] = []
    try:
        tally = parsed.groupBy(KIND).agg(F.count("*").alias("n"),
                                         F.array_distinct(F.flatten(F.collect_set(UNAVAILABLE))).alias("u")).collect()
        counts = {r[KIND]: int(r["n"]) for r in tally}
        unavailable = tuple(sorted({c for r in tally if r[KIND] == CHANGE for c in r["u"] or ()}))
        skipped = sum(counts.get(k, 0) for k in SKIPPED)
        truncates = counts.get(TRUNCATE, 0)
        policy = spec.ingest.cdc.truncate
        first = "" if not truncates else parsed.where(F.col(KIND) == TRUNCATE).select("source_file").collect()[0][0]
        action = plan_truncates(policy, truncates, spec.name, first)
        good = parsed.where(F.col(KIND) == CHANGE)
        if action.apply:
            last_truncate = parsed.where(F.col(KIND) == TRUNCATE).agg(F.max(LSN)).collect()[0][0]
            good = good.where(F.col(LSN) > F.lit(last_truncate))
        bad = parsed.where(F.col(KIND) == INVALID).select("source_file", "value", "reason")
        if action.quarantine:
            bad = bad.unionByName(parsed.where(F.col(KIND) == TRUNCATE).select("source_file", "value", F.concat(
                F.col("reason"), F.lit(quarantine_reason(policy, spec.name))).alias("reason")))
        changes = good.count() if action.apply else counts.get(CHANGE, 0)
        quarantined = counts.get(INVALID, 0) + (truncates if action.quarantine else 0)
        applied = changes + (1 if action.apply else 0)
        latest = last_change_per_key(good, key, unavailable).cache() if applied else None
        orphans = 0
        if latest is not None and unavailable:
            latest, unsent, orphans = _set_aside_unsent(spark, config, table, latest, key, action.apply, held)
            bad = bad.unionByName(unsent)
            quarantined += orphans
        log.info("batch %s: %d changes, %d to quarantine (%d with unsent values and no stored row), %d skipped (%s), "
                 "%d truncates (%s)", batch_id, changes, quarantined, orphans, skipped,
                 {k: counts[k] for k in SKIPPED if k in counts}, truncates, policy)
        summary = {"lakeops.rows": str(applied), "lakeops.quarantined": str(quarantined), "lakeops.files": str(files),
                   "lakeops.skipped": str(skipped), "lakeops.truncates": str(truncates), **(extra_summary or {})}
        if quarantined:
            spark.sparkContext.setJobDescription(f"lakeops cdc {batch_id}: quarantine {quarantined} records")
            rows = bad.select(F.lit(spec.name).alias("table_name"), F.lit(batch_id).alias("batch_id"), "source_file",
                              F.col("value").alias("raw_line"), "reason", F.current_timestamp().alias("quarantined_at"))
            append_once(spark, catalog, rows, config.qualified(spec.quarantine_name), batch_id, summary)
        if latest is None:
            return CdcResult(batch_id, "committed", files, 0, 0, 0, quarantined, skipped=skipped, truncates=truncates,
                             columns_changed=changed)
        try:
            keys = latest.count()
            deletes = latest.where(F.col(OP) == "d").count()
            view = f"lakeops_cdc_{spec.id.slug}_{uuid.uuid4().hex[:8]}".replace("-", "_")
            latest.createOrReplaceTempView(view)
            spark.sparkContext.setJobDescription(f"lakeops cdc {batch_id}: merge {keys} keys ({deletes} deletes)")
            summary.update({"lakeops.keys": str(keys), "lakeops.deletes": str(deletes)})
            try:
                sql = merge_sql(config.qualified(table), view, tuple(c.name for c in columns), key, truncate=action.apply,
                                keep_unavailable=bool(unavailable))
                snapshot, attempts = merge_once(spark, catalog, config.qualified(table), sql, batch_id, summary)
            finally:
                spark.catalog.dropTempView(view)
        finally:
            latest.unpersist()
    finally:
        parsed.unpersist()
        for frame in held:
            frame.unpersist()
    if snapshot is None:
        return CdcResult(batch_id, "already_committed", files, attempts=attempts)
    write_zonemap_after_commit(catalog, config, table, snapshot)
    log.info("batch %s: merged %d changes over %d keys (%d deletes) into %s, snapshot %s, %d attempt(s); quarantined %d",
             batch_id, changes, keys, deletes, spec.name, snapshot, attempts, quarantined)
    return CdcResult(batch_id, "committed", files, changes, keys, deletes, quarantined, snapshot, attempts, skipped,
                     truncates, changed)
