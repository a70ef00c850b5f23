"""Run one plan of a model on Spark: compute the model's rows the plan names and commit them once.
Decisions (mode, ranges, dates) come from lakeops.etl.plan, the model's definition from the config; this
module only executes them, the same way for every model.

A full run overwrites the table, a backfill its dates' partitions; an incremental run recomputes the rows of the
values its sources' changes affect (lakeops.spark.etl_incremental) and replaces the downstream rows of those values
with them (lakeops.spark.etl_replace), which drops the rows the recompute no longer yields."""

from __future__ import annotations

import functools
import logging
import operator
from dataclasses import asdict, dataclass
from datetime import UTC
from typing import TYPE_CHECKING

from lakeops.config import LakeopsConfig
from lakeops.config.models import ModelConfig
from lakeops.etl.model_table import model_table_definition
from lakeops.etl.plan import EtlPlan, day_bounds, days_are_partitions, span_condition
from lakeops.etl.state import keys_written
from lakeops.exceptions import ConfigError
from lakeops.ingest.ddl import create_table_sql
from lakeops.spark.etl_commit import commit_once
from lakeops.spark.etl_frames import duplicate_key_error, fitted, ranges, source_at
from lakeops.spark.etl_incremental import incremental
from lakeops.spark.etl_model import model_rows
from lakeops.spark.etl_replace import Replacement, replace
from lakeops.tables.identifier import quote
from lakeops.watermark import watermark_fact_properties

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyspark.sql import Column, DataFrame, SparkSession

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EtlResult:
    model: str
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
    return f"{plan.model}@{plan.mode}{dates}:{sources}"


def ensure_downstream(spark: SparkSession, catalog: Catalog, config: LakeopsConfig, model: ModelConfig,
                      plan: EtlPlan) -> None:
    """Create the model's table if it does not exist: as its config entry's `create` block declares it, else from the
    columns the model's SELECT yields over the plan's source snapshots (lakeops.etl.model_table; a SQL model's schema
    is known from its plan, without a Spark job)."""
    if catalog.table_exists(config.identifier(model.table_name)):
        return
    spec = config.table(model.table_name)
    derived = None
    if spec.create is None:
        inputs = {name: source_at(spark, config, r) for name, r in ranges(model, plan).items()}
        fields = model_rows(spark, model, inputs).schema.fields
        derived = model_table_definition(model, [(f.name, f.dataType.simpleString(), f.nullable) for f in fields])
        log.info("%s: creating %s from the model's SELECT: %s", model.name, spec.name,
                 ", ".join(c.ddl() for c in derived.columns))
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {spec.id.spark_namespace(config.catalog.name)}")
    spark.sql(create_table_sql(config, spec, derived))


def _in_days(column: str, plan: EtlPlan) -> Column:
    """The rows of the plan's dates (plan.dates is not empty): their UTC days, as Iceberg's day partitions are,
    whatever the process's time zone (PySpark reads a naive datetime literal as local time)."""
    from pyspark.sql import functions as F

    days = [(F.col(column) >= F.lit(start.replace(tzinfo=UTC))) & (F.col(column) < F.lit(end.replace(tzinfo=UTC)))
            for start, end in day_bounds(plan.dates)]
    return functools.reduce(operator.or_, days)


def _recompute(model: ModelConfig, plan: EtlPlan, spark: SparkSession, config: LakeopsConfig) -> DataFrame:
    """The model's rows of the whole table (full) or of the plan's dates (backfill, range: sources with a time
    column read for those dates only)."""
    inputs = {}
    for name, r in ranges(model, plan).items():
        frame, column = source_at(spark, config, r), model.source(name).time_column
        inputs[name] = frame.where(_in_days(column, plan)) if plan.dates and column else frame
    rows = fitted(spark, config, model, model_rows(spark, model, inputs))
    return rows.where(_in_days(model.partition_column, plan)) if plan.dates else rows


def _overwrite(spark: SparkSession, catalog: Catalog, config: LakeopsConfig, model: ModelConfig, plan: EtlPlan,
               rows: DataFrame) -> None:
    """Replace the table's rows of the plan's dates (every row, for a full run) with rows. Where whole days are whole
    files (lakeops.etl.plan.days_are_partitions), an overwrite by filter drops those files by metadata. Otherwise (an
    unpartitioned, monthly or bucketed table), which Iceberg's overwrite by filter refuses ("some, but not all, rows
    match filter"), a MERGE updates and inserts the rows and deletes the dates' rows the recompute no longer yields."""
    from pyspark.sql import functions as F

    target = config.qualified(model.table_name)
    if not plan.dates:
        rows.writeTo(target).overwrite(F.lit(True))
        return
    table = catalog.load_table(config.identifier(model.table_name))
    specs = [[(table.schema().find_column_name(f.source_id) or "", str(f.transform)) for f in spec.fields]
             for spec in table.specs().values()]
    if days_are_partitions(specs, model.partition_column):
        rows.writeTo(target).overwrite(_in_days(model.partition_column, plan))
        return
    log.info("%s: %s is not partitioned by the day of %s in every spec; the dates' rows are replaced by a MERGE",
             model.name, target, model.partition_column)
    days = span_condition("t." + quote(model.partition_column), day_bounds(plan.dates))
    sql = _merge_sql(target, f"{_key_match(model.key, set(model.key))} AND ({days})", rows.columns, delete_unmatched=days)
    _run_merge(spark, model, rows, sql)


def _key_match(key: tuple[str, ...], null_safe: set[str]) -> str:
    """SQL: the target row t and the source row s agree on the key (`<=>` for the columns in null_safe)."""
    return " AND ".join(f"t.{quote(k)} {'<=>' if k in null_safe else '='} s.{quote(k)}" for k in key)


def _merge_sql(target: str, on: str, columns: list[str], delete_unmatched: str) -> str:
    """A MERGE of the view `{source}` (s) into target (t) on `on` that updates the matched rows, inserts the others and
    deletes the target rows no source row matches that the SQL condition delete_unmatched holds for (every column
    quoted: one named like a keyword, `order`, is a column here)."""
    quoted = [quote(c) for c in columns]
    return (f"MERGE INTO {target} t USING {{source}} s ON {on} "
            f"WHEN MATCHED THEN UPDATE SET {', '.join(f't.{c} = s.{c}' for c in quoted)} "
            f"WHEN NOT MATCHED THEN INSERT ({', '.join(quoted)}) VALUES ({', '.join('s.' + c for c in quoted)}) "
            f"WHEN NOT MATCHED BY SOURCE AND ({delete_unmatched}) THEN DELETE")


def run_etl(spark: SparkSession, catalog: Catalog, config: LakeopsConfig, plan: EtlPlan) -> EtlResult:
    """Execute plan; the commit carries plan.new_watermarks in its summary."""
    model = config.model(plan.model)
    if plan.mode == "noop":
        log.info("%s: %s; nothing to do", plan.model, plan.reason)
        return EtlResult(plan.model, plan.mode, "noop", plan.reason)
    absent = [r.source for r in plan.ranges if r.end_snapshot_id is None]
    if absent:
        log.warning("%s: source(s) %s have no snapshot yet; nothing to compute", plan.model, absent)
        return EtlResult(plan.model, plan.mode, "no_source", f"source(s) {absent} have no snapshot yet")
    log_fn = log.warning if "expired" in plan.reason or "cannot follow" in plan.reason else log.info
    log_fn("%s: %s run (%s) over %s", plan.model, plan.mode, plan.reason,
           ", ".join(f"{r.source} {r.start_snapshot_id}..{r.end_snapshot_id}" for r in plan.ranges))
    ensure_downstream(spark, catalog, config, model, plan)
    identity = run_id(plan)
    target = config.qualified(model.table_name)
    spark.sparkContext.setJobDescription(f"lakeops etl {identity}")
    extra = {"lakeops.etl-dates": ",".join(d.isoformat() for d in plan.dates)} if plan.dates else {}
    extra.update(watermark_fact_properties(plan.new_watermark_facts))
    work = incremental(spark, catalog, config, model, plan) if plan.mode == "incremental" else None
    if isinstance(work, EtlPlan):  # the same work, under the same identity, done by a full recompute
        log.warning("%s: %s", plan.model, work.reason)
        plan = work
    if plan.mode in ("full", "backfill", "range"):
        rows = _recompute(model, plan, spark, config)
        status, snapshot = commit_once(spark, catalog, target, identity, plan.new_watermarks,
                                       lambda run, properties: _overwrite(spark, catalog, config, model, plan, rows),
                                       extra, overwrite=True)
    else:
        if work is None:
            log.info("%s: the source range %s holds no change", plan.model, identity)
            return EtlResult(plan.model, plan.mode, "empty", plan.reason)
        assert isinstance(work, Replacement)
        replacement = work
        try:
            status, snapshot = commit_once(
                spark, catalog, target, identity, plan.new_watermarks,
                lambda run, properties: replace(spark, target, model, replacement, run, properties), extra)
        finally:
            replacement.release()
    keys = _keys_written(catalog, config, model.table_name, snapshot)
    log.info("%s: %s %s, %d keys/rows recomputed, snapshot %s", plan.model, plan.mode, status, keys, snapshot)
    return EtlResult(plan.model, plan.mode, status, plan.reason, snapshot, keys)


GROUP_FILTER_CONF = "spark.sql.optimizer.runtime.rowLevelOperationGroupFilter.enabled"
CARDINALITY_VIOLATION = "MERGE_CARDINALITY_VIOLATION"


def _run_merge(spark: SparkSession, model: ModelConfig, rows: DataFrame, sql: str) -> None:
    """Run a backfill's MERGE, without Spark's group filter (a file of the dates may hold only rows to delete). A SELECT
    that yields two rows for one key fails it (Spark's cardinality check, before anything is committed); the error then
    names the model and one such key."""
    view = f"lakeops_etl_{model.name}"
    rows.createOrReplaceTempView(view)
    previous = spark.conf.get(GROUP_FILTER_CONF, None)
    spark.conf.set(GROUP_FILTER_CONF, "false")
    try:
        spark.sql(sql.format(source=view))
    except Exception as e:  # py4j/Spark wrap the error; its condition name is in the message
        if CARDINALITY_VIOLATION not in str(e):
            raise
        raise ConfigError(duplicate_key_error(model, rows)) from e
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
