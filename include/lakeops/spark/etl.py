"""Run one ETL plan on Spark: compute the downstream rows the plan names and commit them once.
Decisions (mode, ranges, dates) come from lakeops.etl.plan; this module only executes them."""

from __future__ import annotations

import functools
import logging
import operator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from lakeops.config import LakeopsConfig
from lakeops.etl.plan import PARTITION_COLUMN, EtlPlan, SourceRange, day_bounds, hour_spans, span_condition
from lakeops.etl.state import keys_written
from lakeops.ingest.ddl import create_table_sql
from lakeops.spark.etl_commit import commit_once
from lakeops.spark.etl_transforms import ORDER_KEY, orders_enriched, user_activity, with_hour

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyspark.sql import Column, DataFrame, SparkSession

log = logging.getLogger(__name__)
CHANGELOG_UNSUPPORTED = "Delete files are currently not supported in changelog scans"


@dataclass(frozen=True)
class EtlResult:
    table: str
    mode: str
    status: str
    """committed | already_committed | empty | noop | no_source"""
    reason: str
    snapshot_id: int | None = None
    keys: int = 0
    """downstream keys recomputed (incremental) or rows written (full, backfill), from the commit's
    snapshot summary"""

    def as_dict(self) -> dict:
        return asdict(self)


def run_id(plan: EtlPlan) -> str:
    """The identity of the work: the same plan on the same source snapshots has the same id."""
    sources = ",".join(f"{r.source}={r.start_snapshot_id}..{r.end_snapshot_id}" for r in plan.ranges)
    dates = f":{plan.dates[0].isoformat()}..{plan.dates[-1].isoformat()}x{len(plan.dates)}" if plan.dates else ""
    return f"{plan.table}@{plan.mode}{dates}:{sources}"


def ensure_downstream(spark: SparkSession, catalog: Catalog, config: LakeopsConfig, table: str) -> None:
    if not catalog.table_exists(config.identifier(table)):
        spec = config.table(table)
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {spec.id.spark_namespace(config.catalog.name)}")
        spark.sql(create_table_sql(config, spec))


def _at(spark: SparkSession, config: LakeopsConfig, r: SourceRange) -> DataFrame:
    return spark.read.option("versionAsOf", str(r.end_snapshot_id)).table(config.qualified(r.source))


def _in_days(column: str, plan: EtlPlan) -> Column:
    """The rows of the plan's dates (plan.dates is not empty)."""
    from pyspark.sql import functions as F

    days = [(F.col(column) >= F.lit(start)) & (F.col(column) < F.lit(end)) for start, end in day_bounds(plan.dates)]
    return functools.reduce(operator.or_, days)


def _recompute(plan: EtlPlan, spark: SparkSession, config: LakeopsConfig) -> DataFrame:
    """The downstream rows of the whole table (full) or of the plan's dates (backfill)."""
    ranges = {r.source: r for r in plan.ranges}
    if plan.table == "user_activity_hourly":
        events = with_hour(_at(spark, config, ranges["events"]))
        if plan.dates:
            events = events.where(_in_days("event_time", plan))
        return user_activity(events)
    orders = _at(spark, config, ranges["orders"])
    if plan.dates:
        orders = orders.where(_in_days("created_at", plan))
    return orders_enriched(orders, _at(spark, config, ranges["users"]))


def _overwrite(spark: SparkSession, config: LakeopsConfig, plan: EtlPlan, rows: DataFrame) -> None:
    from pyspark.sql import functions as F

    target = config.qualified(plan.table)
    condition = _in_days(PARTITION_COLUMN[plan.table], plan) if plan.dates else F.lit(True)
    # Dates are whole days and the table is partitioned by day: the filter selects whole partitions.
    rows.writeTo(target).overwrite(condition)


@dataclass(frozen=True)
class _Merge:
    """An incremental run's MERGE: its source rows, its statement and what to release once it is
    committed."""

    rows: DataFrame
    sql: str
    cached: tuple[DataFrame, ...] = ()
    group_filter: bool = True
    """let Spark first find the target files holding a matched key (a second target scan); off
    when the ON clause already confines the target to the touched hours"""


def _activity_merge(spark: SparkSession, config: LakeopsConfig, plan: EtlPlan) -> _Merge | None:
    """The recomputed (user, hour) rows for the events appended in the plan's range, and the MERGE.

    The appended events are read once (the snapshot range) and held in memory; the events that
    were already there are read from the range's start snapshot, only inside the touched hours,
    so Iceberg prunes every file outside them and no appended file is read twice."""
    from pyspark.sql import functions as F

    r = plan.ranges[0]
    source = config.qualified(r.source)
    columns = ["user_id", "session_id", "event_time", "event_type", "hour"]
    delta = with_hour(spark.read.option("start-snapshot-id", str(r.start_snapshot_id))
                      .option("end-snapshot-id", str(r.end_snapshot_id)).table(source)).select(*columns).cache()
    hours = [row["hour"] for row in delta.select("hour").distinct().collect()]
    if not hours:
        delta.unpersist()
        return None
    # Late events may touch old hours: only their (user, hour) keys are recomputed.
    spans = hour_spans(hours)
    before = spark.read.option("versionAsOf", str(r.start_snapshot_id)).table(source)
    known = with_hour(before.where(F.expr(span_condition("event_time", spans)))).select(*columns)
    # The appended events' keys as they are (no distinct: a shuffle less), broadcast to the old rows.
    known = known.join(F.broadcast(delta.select("user_id", "hour")), ["user_id", "hour"], "left_semi")
    rows = user_activity(known.unionByName(delta))
    target = config.qualified(plan.table)
    sql = (f"MERGE INTO {target} t USING {{source}} s ON t.user_id = s.user_id AND t.hour = s.hour "
           f"AND ({span_condition('t.hour', spans)}) WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    return _Merge(rows, sql, (delta,), group_filter=False)


def _changed_keys(spark: SparkSession, config: LakeopsConfig, r: SourceRange, key: str, view: str) -> DataFrame:
    """Keys inserted, updated or deleted in the source between the range's snapshots."""
    table = config.qualified(r.source)
    empty = spark.createDataFrame([], f"{key} BIGINT")
    if r.start_snapshot_id == r.end_snapshot_id:
        return empty
    spark.sql(f"CALL {config.catalog.name}.system.create_changelog_view(table => '{table}', "
              f"options => map('start-snapshot-id', '{r.start_snapshot_id}', 'end-snapshot-id', '{r.end_snapshot_id}'), "
              f"changelog_view => '{view}')")
    try:
        return spark.table(view).select(key).distinct().cache().localCheckpoint()
    except Exception as e:
        if CHANGELOG_UNSUPPORTED not in str(e):
            raise
        log.warning("source %s has merge-on-read delete files in %s..%s, which Iceberg's changelog scan cannot read; "
                    "finding the changed keys by comparing the two snapshots instead (reads both)",
                    r.source, r.start_snapshot_id, r.end_snapshot_id)
        before = spark.read.option("versionAsOf", str(r.start_snapshot_id)).table(table)
        after = spark.read.option("versionAsOf", str(r.end_snapshot_id)).table(table)
        return before.exceptAll(after).unionByName(after.exceptAll(before)).select(key).distinct()


def _orders_merge(spark: SparkSession, config: LakeopsConfig, plan: EtlPlan) -> _Merge | None:
    from pyspark.sql import functions as F

    ranges = {r.source: r for r in plan.ranges}
    orders, users = _at(spark, config, ranges["orders"]), _at(spark, config, ranges["users"])
    changed_orders = _changed_keys(spark, config, ranges["orders"], ORDER_KEY, "lakeops_orders_changes")
    changed_users = _changed_keys(spark, config, ranges["users"], "user_id", "lakeops_users_changes")
    by_user = orders.join(changed_users, "user_id", "left_semi").select(ORDER_KEY)
    # Orders of changed users already downstream: a deleted order's user may have changed too.
    downstream = spark.table(config.qualified(plan.table)).join(changed_users, "user_id", "left_semi").select(ORDER_KEY)
    affected = changed_orders.unionByName(by_user).unionByName(downstream).distinct().cache()
    if affected.isEmpty():
        affected.unpersist()
        return None
    current = orders_enriched(orders.join(affected, ORDER_KEY, "left_semi"), users)
    gone = affected.join(orders, ORDER_KEY, "left_anti")
    rows = current.withColumn("_deleted", F.lit(False)).unionByName(
        gone.withColumn("_deleted", F.lit(True)), allowMissingColumns=True)
    cols = [c for c in current.columns]
    sql = (f"MERGE INTO {config.qualified(plan.table)} t USING {{source}} s ON t.{ORDER_KEY} = s.{ORDER_KEY} "
           "WHEN MATCHED AND s._deleted THEN DELETE "
           f"WHEN MATCHED THEN UPDATE SET {', '.join(f't.{c} = s.{c}' for c in cols)} "
           f"WHEN NOT MATCHED AND NOT s._deleted THEN INSERT ({', '.join(cols)}) VALUES ({', '.join('s.' + c for c in cols)})")
    # The ON clause has no partition predicate: Spark's group filter keeps the rewrite to the files
    # holding an affected order, and reads the source twice, so the source is computed once here.
    return _Merge(rows.localCheckpoint(), sql, (affected,))


def run_etl(spark: SparkSession, catalog: Catalog, config: LakeopsConfig, plan: EtlPlan) -> EtlResult:
    """Execute plan; the commit carries plan.new_watermarks in its summary."""
    if plan.mode == "noop":
        log.info("%s: %s; nothing to do", plan.table, plan.reason)
        return EtlResult(plan.table, plan.mode, "noop", plan.reason)
    absent = [r.source for r in plan.ranges if r.end_snapshot_id is None]
    if absent:
        log.warning("%s: source(s) %s have no snapshot yet; nothing to compute", plan.table, absent)
        return EtlResult(plan.table, plan.mode, "no_source", f"source(s) {absent} have no snapshot yet")
    log_fn = log.warning if "expired" in plan.reason or "cannot follow" in plan.reason else log.info
    log_fn("%s: %s run (%s) over %s", plan.table, plan.mode, plan.reason,
           ", ".join(f"{r.source} {r.start_snapshot_id}..{r.end_snapshot_id}" for r in plan.ranges))
    ensure_downstream(spark, catalog, config, plan.table)
    identity = run_id(plan)
    spark.sparkContext.setJobDescription(f"lakeops etl {identity}")
    extra = {"lakeops.etl-dates": ",".join(d.isoformat() for d in plan.dates)} if plan.dates else {}
    if plan.mode in ("full", "backfill"):
        rows = _recompute(plan, spark, config)
        status, snapshot = commit_once(spark, catalog, config.qualified(plan.table), identity, plan.new_watermarks,
                                       lambda: _overwrite(spark, config, plan, rows), extra, overwrite=True)
    else:
        merge = (_activity_merge if plan.table == "user_activity_hourly" else _orders_merge)(spark, config, plan)
        if merge is None:
            log.info("%s: the source range %s holds no new rows", plan.table, identity)
            return EtlResult(plan.table, plan.mode, "empty", plan.reason)
        try:
            status, snapshot = commit_once(spark, catalog, config.qualified(plan.table), identity, plan.new_watermarks,
                                           lambda: _run_merge(spark, plan.table, merge), extra)
        finally:
            for frame in merge.cached:
                frame.unpersist()
    keys = _keys_written(catalog, config, plan.table, snapshot)
    log.info("%s: %s %s, %d keys/rows recomputed, snapshot %s", plan.table, plan.mode, status, keys, snapshot)
    return EtlResult(plan.table, plan.mode, status, plan.reason, snapshot, keys)


GROUP_FILTER_CONF = "spark.sql.optimizer.runtime.rowLevelOperationGroupFilter.enabled"


def _run_merge(spark: SparkSession, table: str, merge: _Merge) -> None:
    view = f"lakeops_etl_{table}"
    merge.rows.createOrReplaceTempView(view)
    previous = spark.conf.get(GROUP_FILTER_CONF, None)
    spark.conf.set(GROUP_FILTER_CONF, str(merge.group_filter).lower())
    try:
        spark.sql(merge.sql.format(source=view))
    finally:
        if previous is None:
            spark.conf.unset(GROUP_FILTER_CONF)
        else:
            spark.conf.set(GROUP_FILTER_CONF, previous)
        spark.catalog.dropTempView(view)


def _keys_written(catalog: Catalog, config: LakeopsConfig, table: str, snapshot_id: int | None) -> int:
    """Keys the commit recomputed, from its snapshot summary (no Spark job)."""
    snapshot = catalog.load_table(config.identifier(table)).snapshot_by_id(snapshot_id) if snapshot_id else None
    return keys_written(snapshot.summary.additional_properties) if snapshot and snapshot.summary else 0
