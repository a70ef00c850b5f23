"""Run one ETL plan on Spark: compute the downstream rows the plan names and commit them once.
Decisions (mode, ranges, dates) come from lakeops.etl.plan; this module only executes them."""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from lakeops.config import LakeopsConfig
from lakeops.etl.plan import PARTITION_COLUMN, EtlPlan, SourceRange, day_bounds, hour_spans
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
    """downstream keys recomputed (incremental) or rows written (full, backfill)"""

    def as_dict(self) -> dict:
        return asdict(self)


def run_id(plan: EtlPlan) -> str:
    """The identity of the work: the same plan on the same source snapshots has the same id."""
    sources = ",".join(f"{r.source}={r.start_snapshot_id}..{r.end_snapshot_id}" for r in plan.ranges)
    dates = f":{plan.dates[0].isoformat()}..{plan.dates[-1].isoformat()}x{len(plan.dates)}" if plan.dates else ""
    return f"{plan.table}@{plan.mode}{dates}:{sources}"


def ensure_downstream(spark: SparkSession, catalog: Catalog, config: LakeopsConfig, table: str) -> None:
    if not catalog.table_exists(config.identifier(table)):
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {config.catalog.name}.{config.catalog.namespace}")
        spark.sql(create_table_sql(config, config.table(table)))


def _at(spark: SparkSession, config: LakeopsConfig, r: SourceRange) -> DataFrame:
    return spark.read.option("versionAsOf", str(r.end_snapshot_id)).table(config.qualified(r.source))


def _in_days(column: str, plan: EtlPlan) -> Column:
    from pyspark.sql import functions as F

    cond = None
    for start, end in day_bounds(plan.dates):
        part = (F.col(column) >= F.lit(start)) & (F.col(column) < F.lit(end))
        cond = part if cond is None else cond | part
    return cond


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


def _activity_merge(spark: SparkSession, config: LakeopsConfig, plan: EtlPlan) -> tuple[DataFrame | None, str]:
    """The recomputed (user, hour) rows for the events appended in the plan's range, and the MERGE."""
    from pyspark.sql import functions as F

    r = plan.ranges[0]
    source = config.qualified(r.source)
    delta = (spark.read.option("start-snapshot-id", str(r.start_snapshot_id))
             .option("end-snapshot-id", str(r.end_snapshot_id)).table(source))
    keys = with_hour(delta).select("user_id", "hour").distinct().cache()
    hours = sorted(row[0] for row in keys.select("hour").distinct().collect())
    if not hours:
        return None, ""
    # Late events may touch old hours: read the source only inside the touched hours (merged runs),
    # so Iceberg prunes every file outside them.
    spans = hour_spans(hours)
    in_spans = None
    for start, end in spans:
        part = (F.col("event_time") >= F.lit(start)) & (F.col("event_time") < F.lit(end))
        in_spans = part if in_spans is None else in_spans | part
    low, high = spans[0][0], spans[-1][1]
    events = with_hour(_at(spark, config, r).where(in_spans))
    rows = user_activity(events.join(F.broadcast(keys), ["user_id", "hour"], "left_semi"))
    target = config.qualified(plan.table)
    merge = (f"MERGE INTO {target} t USING {{source}} s ON t.user_id = s.user_id AND t.hour = s.hour "
             f"AND t.hour >= TIMESTAMP '{_ts(low)}' AND t.hour < TIMESTAMP '{_ts(high)}' "
             "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    return rows, merge


def _ts(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S")


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


def _orders_merge(spark: SparkSession, config: LakeopsConfig, plan: EtlPlan) -> tuple[DataFrame | None, str]:
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
        return None, ""
    current = orders_enriched(orders.join(affected, ORDER_KEY, "left_semi"), users)
    gone = affected.join(orders, ORDER_KEY, "left_anti")
    rows = current.withColumn("_deleted", F.lit(False)).unionByName(
        gone.withColumn("_deleted", F.lit(True)), allowMissingColumns=True)
    cols = [c for c in current.columns]
    merge = (f"MERGE INTO {config.qualified(plan.table)} t USING {{source}} s ON t.{ORDER_KEY} = s.{ORDER_KEY} "
             "WHEN MATCHED AND s._deleted THEN DELETE "
             f"WHEN MATCHED THEN UPDATE SET {', '.join(f't.{c} = s.{c}' for c in cols)} "
             f"WHEN NOT MATCHED AND NOT s._deleted THEN INSERT ({', '.join(cols)}) VALUES ({', '.join('s.' + c for c in cols)})")
    return rows, merge


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
    counted: list[int] = []

    if plan.mode in ("full", "backfill"):
        rows = _recompute(plan, spark, config).localCheckpoint()
        counted.append(rows.count())

        def write() -> None:
            _overwrite(spark, config, plan, rows)
    else:
        rows, merge = (_activity_merge if plan.table == "user_activity_hourly" else _orders_merge)(spark, config, plan)
        if rows is None:
            log.info("%s: the source range %s holds no new rows", plan.table, identity)
            return EtlResult(plan.table, plan.mode, "empty", plan.reason)
        rows = rows.localCheckpoint()
        counted.append(rows.count())
        view = f"lakeops_etl_{plan.table}"

        def write() -> None:
            rows.createOrReplaceTempView(view)
            spark.sql(merge.format(source=view))

    extra = {"lakeops.etl-dates": ",".join(d.isoformat() for d in plan.dates)} if plan.dates else {}
    status, snapshot = commit_once(spark, catalog, config.qualified(plan.table), identity, plan.new_watermarks, write, extra,
                                   overwrite=plan.mode in ("full", "backfill"))
    log.info("%s: %s %s, %d keys/rows recomputed, snapshot %s", plan.table, plan.mode, status, counted[0], snapshot)
    return EtlResult(plan.table, plan.mode, status, plan.reason, snapshot, counted[0])
