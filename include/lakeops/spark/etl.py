"""Run one plan of a model on Spark: compute the model's rows the plan names and commit them once.
Decisions (mode, ranges, dates) come from lakeops.etl.plan, the model's definition from the config; this
module only executes them, the same way for every model.

An incremental run: each source's changes since its watermark (lakeops.spark.etl_changes) give the affected
values of the model's recompute columns (through the source's key expressions); the sources are read only for
those values (and, when the partition column is one of them, only inside the touched periods; for the other
recompute columns, only inside value ranges covering the affected values (lakeops.etl.key_ranges): both are
conditions Iceberg prunes files with); the model's rows for them replace the downstream rows of those values in
one MERGE on the key, which deletes the rows the recompute no longer yields."""

from __future__ import annotations

import dataclasses
import functools
import logging
import operator
from dataclasses import asdict, dataclass
from datetime import UTC
from typing import TYPE_CHECKING, Any

from lakeops.config import LakeopsConfig
from lakeops.config.models import ModelConfig
from lakeops.etl.diff_files import DiffFiles, diff_files
from lakeops.etl.key_ranges import covering_ranges, range_condition
from lakeops.etl.model_columns import check_model_columns
from lakeops.etl.model_table import model_table_definition
from lakeops.etl.plan import (
    EtlPlan,
    SourceRange,
    day_bounds,
    days_are_partitions,
    full_is_cheaper,
    period_spans,
    span_condition,
)
from lakeops.etl.state import keys_written
from lakeops.etl.utc import from_micros
from lakeops.exceptions import ConfigError
from lakeops.ingest.ddl import create_table_sql
from lakeops.spark.etl_changes import CHANGE_TYPE, ChangedFiles, appended, changed_between, changelog
from lakeops.spark.etl_commit import commit_once
from lakeops.spark.etl_model import model_rows
from lakeops.spark.scan_tasks import StagedReads, java_table
from lakeops.tables.identifier import quote
from lakeops.watermark import watermark_fact_properties

if TYPE_CHECKING:
    from collections.abc import Callable

    import pyarrow as pa
    from pyiceberg.catalog import Catalog
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.types import DataType, StructType

log = logging.getLogger(__name__)
DELETED = "_lakeops_deleted"


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
        inputs = {name: _at(spark, config, r) for name, r in _ranges(model, plan).items()}
        fields = model_rows(spark, model, inputs).schema.fields
        derived = model_table_definition(model, [(f.name, f.dataType.simpleString(), f.nullable) for f in fields])
        log.info("%s: creating %s from the model's SELECT: %s", model.name, spec.name,
                 ", ".join(c.ddl() for c in derived.columns))
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {spec.id.spark_namespace(config.catalog.name)}")
    spark.sql(create_table_sql(config, spec, derived))


def _ranges(model: ModelConfig, plan: EtlPlan) -> dict[str, SourceRange]:
    """source name (as the model reads it) -> its range in the plan."""
    by_table = {r.source: r for r in plan.ranges}
    return {name: by_table[model.source_table(name)] for name in model.sources}


def _at(spark: SparkSession, config: LakeopsConfig, r: SourceRange) -> DataFrame:
    """The source at its range's end."""
    return spark.read.option("versionAsOf", str(r.end_snapshot_id)).table(config.qualified(r.source))


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
    for name, r in _ranges(model, plan).items():
        frame, column = _at(spark, config, r), model.source(name).time_column
        inputs[name] = frame.where(_in_days(column, plan)) if plan.dates and column else frame
    rows = _fitted(spark, config, model, model_rows(spark, model, inputs))
    return rows.where(_in_days(model.partition_column, plan)) if plan.dates else rows


def _fitted(spark: SparkSession, config: LakeopsConfig, model: ModelConfig, rows: DataFrame) -> DataFrame:
    """The rows, once their columns are known to fit the model's table (lakeops.etl.model_columns; no Spark job)."""
    target = config.qualified(model.table_name)
    check_model_columns(model, rows.columns, target, spark.table(target).columns)
    return rows


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
    # No group filter (files holding a matched key): a file of the dates may hold only rows to delete.
    _run_merge(spark, model, _Merge(rows, sql, group_filter=False))


@dataclass(frozen=True)
class _Merge:
    """An incremental run's MERGE: its source rows, its statement and what to release once it is
    committed."""

    rows: DataFrame
    sql: str
    cached: tuple[DataFrame, ...] = ()
    staged: tuple[StagedReads, ...] = ()
    """the changed files' task sets the changes were read from"""
    group_filter: bool = True
    """let Spark first find the target files holding a matched key (a second target scan); off
    when the ON clause already confines the target to the touched periods"""


def _key_columns(model: ModelConfig, name: str) -> list[Column]:
    """The source's recompute values, as columns _lakeops_k<i> (a source may lack a column of that name)."""
    from pyspark.sql import functions as F

    return [F.expr(e).alias(f"_lakeops_k{i}") for i, e in enumerate(model.key_expressions(name).values())]


def _changes(spark: SparkSession, config: LakeopsConfig, model: ModelConfig, name: str, r: SourceRange,
             changed: dict[str, tuple[StagedReads, ChangedFiles]]) -> DataFrame:
    table = config.qualified(r.source)
    assert r.end_snapshot_id is not None
    if model.source(name).kind == "append":
        return appended(spark, table, r.start_snapshot_id, r.end_snapshot_id)
    staged, files = changed[name]
    # Only the changed rows' recompute values are needed here, not which change each is: no key, no pairing.
    return changelog(spark, table, r.start_snapshot_id, r.end_snapshot_id, staged=staged, changed=files)


def _diffs_by_metadata(catalog: Catalog, config: LakeopsConfig, model: ModelConfig, plan: EtlPlan
                       ) -> dict[str, tuple[DiffFiles | None, int | None]]:
    """Each changelog source with a range -> (the files its diff reads, as pyiceberg finds them from metadata, None
    where it cannot (lakeops.etl.diff_files); the source's live bytes at the range's end, None when unknown)."""
    found = {}
    for name, r in _ranges(model, plan).items():
        if model.source(name).kind == "append" or r.start_snapshot_id == r.end_snapshot_id:
            continue
        assert r.start_snapshot_id is not None and r.end_snapshot_id is not None  # an incremental plan's range
        table = catalog.load_table(config.identifier(r.source))
        end = table.snapshot_by_id(r.end_snapshot_id)
        live = end.summary.get("total-files-size") if end is not None and end.summary is not None else None
        found[name] = (diff_files(table, r.start_snapshot_id, r.end_snapshot_id), int(live) if live else None)
    return found


def _changed_files(spark: SparkSession, config: LakeopsConfig, model: ModelConfig, plan: EtlPlan,
                   staged: list[StagedReads], known: dict[str, DiffFiles | None]) -> dict[str, tuple[StagedReads, ChangedFiles]]:
    """Each changelog source with a range -> its staged reads and changed files, planned once for the cost check and
    the read (only the tasks of the files known from metadata, where they are); the staged reads are appended to
    `staged` (the caller releases them)."""
    changed = {}
    for name, r in _ranges(model, plan).items():
        if name not in known:
            continue
        assert r.start_snapshot_id is not None and r.end_snapshot_id is not None  # an incremental plan's range
        table = config.qualified(r.source)
        staged.append(StagedReads(spark, table, java_table(spark, table)))
        changed[name] = (staged[-1], changed_between(staged[-1], r.start_snapshot_id, r.end_snapshot_id, known[name]))
    return changed


def _cheaper_in_full(model: ModelConfig, plan: EtlPlan, counted: dict[str, tuple[int, int | None]]) -> str | None:
    """Why a full recompute reads less than this incremental run (lakeops.etl.plan.full_is_cheaper), or None.
    counted: changelog source -> (bytes its diff reads, its live bytes)."""
    if not model.full_recompute_share:
        return None
    ranges = _ranges(model, plan)
    for name, (read, live) in counted.items():
        reason = full_is_cheaper(ranges[name].source, read, live, model.full_recompute_share)
        if reason:
            return reason
    return None


def _incremental(spark: SparkSession, catalog: Catalog, config: LakeopsConfig, model: ModelConfig, plan: EtlPlan
                 ) -> _Merge | EtlPlan | None:
    """The incremental run's MERGE; None when the ranges hold no change; or the plan as a full recompute when that
    reads less (a change that touched most of a changelog source's files), known from the metadata when pyiceberg
    can count it, else once Iceberg has planned the changed files in the JVM."""
    diffs = _diffs_by_metadata(catalog, config, model, plan)
    cheaper = _cheaper_in_full(model, plan, {n: (d.read_bytes, live) for n, (d, live) in diffs.items() if d is not None})
    if cheaper is not None:
        return dataclasses.replace(plan, mode="full", reason=cheaper)
    staged: list[StagedReads] = []
    try:
        changed = _changed_files(spark, config, model, plan, staged, {n: d for n, (d, _) in diffs.items()})
        cheaper = _cheaper_in_full(model, plan, {n: (files.read_bytes, diffs[n][1]) for n, (_, files) in changed.items()
                                                 if diffs[n][0] is None})
        if cheaper is not None:
            for reads in staged:
                reads.release()
            return dataclasses.replace(plan, mode="full", reason=cheaper)
        return _incremental_merge(spark, config, model, plan, changed, staged)
    except BaseException:
        for reads in staged:
            reads.release()
        raise


def distinct_values(column: pa.ChunkedArray, data_type: DataType) -> list[Any]:
    """The column's distinct non-null values, from the Arrow form Spark's toArrow() gives them in: a timestamp as a
    naive UTC datetime (lakeops.etl.utc), where PySpark's collect() gives local time; a date as a date."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from pyspark.sql.types import DateType, TimestampNTZType, TimestampType

    unique = pc.unique(column.drop_null())
    if isinstance(data_type, (TimestampType, TimestampNTZType)):
        return [from_micros(v) for v in unique.cast(pa.int64()).to_pylist()]
    if isinstance(data_type, DateType):
        return [data_type.fromInternal(v) for v in unique.cast(pa.int32()).to_pylist()]
    return unique.to_pylist()


def _incremental_merge(spark: SparkSession, config: LakeopsConfig, model: ModelConfig, plan: EtlPlan,
                       changed_files: dict[str, tuple[StagedReads, ChangedFiles]], staged: list[StagedReads]
                       ) -> _Merge | None:
    from pyspark.sql import functions as F

    ranges = _ranges(model, plan)
    changed = {name: r for name, r in ranges.items() if r.start_snapshot_id != r.end_snapshot_id}
    deltas = {name: _changes(spark, config, model, name, r, changed_files) for name, r in changed.items()}
    appends = {name: deltas[name].drop(CHANGE_TYPE) for name in changed if model.source(name).kind == "append"}
    key_names = [f"_lakeops_k{i}" for i in range(len(model.recompute_columns))]
    affected_parts = [(appends[name] if name in appends else deltas[name]).select(*_key_columns(model, name)) for name in changed]
    distinct = functools.reduce(lambda a, b: a.unionByName(b), affected_parts).distinct()
    # The affected values go to the driver in one action: the broadcasts below would gather them there anyway,
    # and held as a local relation they are broadcast (and their periods found) without another Spark job.
    held, schema = distinct.toArrow(), distinct.schema
    if not held.num_rows:
        for reads in staged:
            reads.release()
        return None
    # A NULL among the affected values is a value like any other: the matches on its column below are null-safe, and
    # its range condition keeps the rows where it is NULL. A NULL period has no span: such a run reads every period.
    nulls = {column for column, name in zip(model.recompute_columns, key_names, strict=True) if held.column(name).null_count}
    partition = model.recompute_columns.index(model.partition_column) \
        if model.span_pruning and model.partition_column not in nulls else None
    values: list[Any] = [] if partition is None else distinct_values(
        held.column(key_names[partition]), schema[key_names[partition]].dataType)
    affected = spark.createDataFrame(held, schema=schema)
    spans = period_spans(values, model.partition_grain) if partition is not None else []
    covered = _key_ranges(model, held, schema, skip=model.partition_column if spans else None)
    confined = [f"{len(c)} range(s) of {column} from {c[0][0]} to {c[-1][1]}" for column, c in covered.items() if c]
    confined += [f"NULL {column}" for column in sorted(nulls)]
    if spans:
        confined.insert(0, f"{len(spans)} span(s) of {model.partition_column}")
    log.info("%s: %d affected values; reads confined to %s", model.name, held.num_rows, "; ".join(confined) or "no range")
    null_keys = {k for k, c in zip(key_names, model.recompute_columns, strict=True) if c in nulls}
    inputs = {}
    for name, r in ranges.items():
        column = model.source(name).time_column
        # At the range's end, under the schema the source has there. An append source's rows there are those at the
        # watermark plus the appended ones; a column added since is NULL in the older rows, as in a full recompute.
        frame = _at(spark, config, r)
        frame = frame.where(F.expr(span_condition(column, spans))) if spans and column else frame
        expressions = model.key_expressions(name)
        for recompute, covering in covered.items():
            expression = expressions[recompute]
            if expression in frame.columns:  # a plain column of the source, whose file bounds Iceberg prunes with
                frame = frame.where(F.expr(range_condition(quote(expression), covering, recompute in nulls)))
        keyed = frame.select("*", *_key_columns(model, name))
        inputs[name] = _join(keyed, affected, key_names, "left_semi", null_keys, broadcast=True).drop(*key_names)
    rows = _fitted(spark, config, model, model_rows(spark, model, inputs))
    target_name = config.qualified(model.table_name)

    def target() -> DataFrame:
        downstream = spark.table(target_name)
        for recompute, covering in covered.items():
            downstream = downstream.where(F.expr(range_condition(quote(recompute), covering, recompute in nulls)))
        return downstream.where(F.expr(span_condition(quote(model.partition_column), spans))) if spans else downstream

    source, cached = _merge_source(model, target, affected.toDF(*model.recompute_columns), rows, nulls)
    on = _key_match(model.key, _null_safe_keys(model, nulls))
    if spans:
        on += f" AND ({span_condition('t.' + quote(model.partition_column), spans)})"
    # Only a key column's ranges may narrow the match: a recomputed row and the downstream row it replaces agree on it.
    on += "".join(f" AND {range_condition('t.' + quote(c), covering, c in nulls)}"
                  for c, covering in covered.items() if c in model.key)
    sql = _merge_sql(target_name, on, rows.columns, flagged=True)
    if spans:
        return _Merge(source, sql, cached, tuple(staged), group_filter=False)
    # No partition predicate in the ON clause: Spark's group filter keeps the rewrite to the files holding
    # an affected key, and reads the source twice, so the source is computed once here.
    return _Merge(source.localCheckpoint(), sql, cached, tuple(staged))


def _key_ranges(model: ModelConfig, held: pa.Table, schema: StructType, skip: str | None) -> dict[str, list[tuple[Any, Any]]]:
    """Recompute column -> ranges covering its affected values (lakeops.etl.key_ranges), for each column but `skip`
    (the partition column, when the touched periods confine the run already) whose type Iceberg prunes by."""
    from pyspark.sql.types import DateType, DecimalType, IntegralType, StringType, TimestampType

    found = {}
    for i, column in enumerate(model.recompute_columns):
        data_type = schema[f"_lakeops_k{i}"].dataType
        if column != skip and isinstance(data_type, (IntegralType, DecimalType, DateType, TimestampType, StringType)):
            found[column] = covering_ranges(distinct_values(held.column(f"_lakeops_k{i}"), data_type))
    return found


def _key_match(key: tuple[str, ...], null_safe: set[str]) -> str:
    """SQL: the target row t and the source row s agree on the key (`<=>` for the columns in null_safe)."""
    return " AND ".join(f"t.{quote(k)} {'<=>' if k in null_safe else '='} s.{quote(k)}" for k in key)


def _merge_sql(target: str, on: str, columns: list[str], flagged: bool = False, delete_unmatched: str = "") -> str:
    """A MERGE of the view `{source}` (s) into target (t) on `on` that updates the matched rows and inserts the others
    (every column quoted: one named like a keyword, `order`, is a column here). flagged: a source row with DELETED true
    deletes its match instead and inserts nothing; delete_unmatched: the target rows no source row matches that this
    SQL condition holds for are deleted."""
    quoted = [quote(c) for c in columns]
    sql = (f"MERGE INTO {target} t USING {{source}} s ON {on} "
           + (f"WHEN MATCHED AND s.{DELETED} THEN DELETE " if flagged else "")
           + f"WHEN MATCHED THEN UPDATE SET {', '.join(f't.{c} = s.{c}' for c in quoted)} "
           + f"WHEN NOT MATCHED{f' AND NOT s.{DELETED}' if flagged else ''} THEN INSERT ({', '.join(quoted)}) "
           + f"VALUES ({', '.join('s.' + c for c in quoted)})")
    return sql + (f" WHEN NOT MATCHED BY SOURCE AND ({delete_unmatched}) THEN DELETE" if delete_unmatched else "")


def _merge_source(model: ModelConfig, target: Callable[[], DataFrame], by_value: DataFrame, rows: DataFrame,
                  nulls: set[str]) -> tuple[DataFrame, tuple[DataFrame, ...]]:
    """(the MERGE's source, the frames held for it): the recomputed rows, and with DELETED true the keys of the
    downstream rows the recompute no longer yields, which are of the affected values those without a recomputed row.
    When the model recomputes by its key, the affected values are those keys, and every recomputed row has one of them
    (it is computed from the source rows of those values only): a right outer join of the rows with them gives both in
    one pass, and a key that is not in the downstream table matches nothing in the MERGE, so the target is not loaded.
    Its output is partitioned by the affected keys, the MERGE's join key, where a full outer join's output has no
    partitioning Spark knows and is shuffled once more. Otherwise the target's rows of the affected values (in the
    touched periods) give the keys, and the rows, read twice, are held. `nulls`: the recompute columns with a NULL
    among the affected values."""
    from pyspark.sql import functions as F

    key = list(model.key)
    if set(model.recompute_columns) == set(key):
        present = "_lakeops_present"
        joined = _join(rows.withColumn(present, F.lit(True)), by_value.select(*key), key, "right_outer", nulls)
        return joined.withColumn(DELETED, F.col(present).isNull()).drop(present), ()
    rows = rows.cache()
    touched = _join(target(), by_value, list(model.recompute_columns), "left_semi", nulls).select(*key)
    gone = _join(touched, rows.select(*key), key, "left_anti", _null_safe_keys(model, nulls))
    return rows.withColumn(DELETED, F.lit(False)).unionByName(gone.withColumn(DELETED, F.lit(True)),
                                                              allowMissingColumns=True), (rows,)


def _null_safe_keys(model: ModelConfig, nulls: set[str]) -> set[str]:
    """The key columns to match null-safely: those with a NULL among the affected values, and those that are no
    recompute column, whose values the affected ones do not tell."""
    return {k for k in model.key if k in nulls or k not in model.recompute_columns}


def _join(left: DataFrame, right: DataFrame, columns: list[str], how: str, nullable: set[str], broadcast: bool = False
          ) -> DataFrame:
    """left joined with right on the columns both have (one column of each name, as `USING` gives; how: left_semi,
    left_anti or right_outer, whose join columns are right's). A column in
    `nullable` matches NULL with NULL, as a grouping does; a plain match never does. Null-safe matches are kept to
    the columns where a NULL may occur: Spark keys them by (coalesce, is null) pairs, which no partitioning of the
    plain columns gives, so they cost a shuffle of an already partitioned side."""
    from pyspark.sql import functions as F

    if not nullable & set(columns):
        return left.join(F.broadcast(right) if broadcast else right, columns, how)
    renamed = {c: f"_lakeops_r_{c}" for c in columns}
    other = right.toDF(*[renamed.get(c, c) for c in right.columns])
    other = F.broadcast(other) if broadcast else other
    condition = functools.reduce(operator.and_, [left[c].eqNullSafe(other[renamed[c]]) if c in nullable
                                                 else left[c] == other[renamed[c]] for c in columns])
    joined = left.join(other, condition, how)
    if how in ("left_semi", "left_anti"):
        return joined
    keys = [other[c2].alias(c) for c, c2 in renamed.items()]
    return joined.select(*keys, *[left[c] for c in left.columns if c not in renamed],
                         *[other[c] for c in other.columns if c not in renamed.values()])


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
    merge = _incremental(spark, catalog, config, model, plan) if plan.mode == "incremental" else None
    if isinstance(merge, EtlPlan):  # the same work, under the same identity, done by a full recompute
        log.warning("%s: %s", plan.model, merge.reason)
        plan = merge
    if plan.mode in ("full", "backfill", "range"):
        rows = _recompute(model, plan, spark, config)
        status, snapshot = commit_once(spark, catalog, target, identity, plan.new_watermarks,
                                       lambda: _overwrite(spark, catalog, config, model, plan, rows), extra, overwrite=True)
    else:
        if merge is None:
            log.info("%s: the source range %s holds no change", plan.model, identity)
            return EtlResult(plan.model, plan.mode, "empty", plan.reason)
        assert isinstance(merge, _Merge)
        try:
            status, snapshot = commit_once(spark, catalog, target, identity, plan.new_watermarks,
                                           lambda: _run_merge(spark, model, merge), extra)
        finally:
            for frame in merge.cached:
                frame.unpersist()
            for reads in merge.staged:
                reads.release()
    keys = _keys_written(catalog, config, model.table_name, snapshot)
    log.info("%s: %s %s, %d keys/rows recomputed, snapshot %s", plan.model, plan.mode, status, keys, snapshot)
    return EtlResult(plan.model, plan.mode, status, plan.reason, snapshot, keys)


GROUP_FILTER_CONF = "spark.sql.optimizer.runtime.rowLevelOperationGroupFilter.enabled"
CARDINALITY_VIOLATION = "MERGE_CARDINALITY_VIOLATION"


def _run_merge(spark: SparkSession, model: ModelConfig, merge: _Merge) -> None:
    """Run the MERGE. A SELECT that yields two rows for one key fails it (Spark's cardinality check, before anything
    is committed); the error then names the model and one such key."""
    view = f"lakeops_etl_{model.name}"
    merge.rows.createOrReplaceTempView(view)
    previous = spark.conf.get(GROUP_FILTER_CONF, None)
    spark.conf.set(GROUP_FILTER_CONF, str(merge.group_filter).lower())
    try:
        spark.sql(merge.sql.format(source=view))
    except Exception as e:  # py4j/Spark wrap the error; its condition name is in the message
        if CARDINALITY_VIOLATION not in str(e):
            raise
        raise ConfigError(_duplicate_key(model, merge.rows)) from e
    finally:
        if previous is None:
            spark.conf.unset(GROUP_FILTER_CONF)
        else:
            spark.conf.set(GROUP_FILTER_CONF, previous)
        spark.catalog.dropTempView(view)


def _duplicate_key(model: ModelConfig, rows: DataFrame) -> str:
    """The error of a SELECT that yields several rows for one key, with one such key (found by one more Spark job, on
    the failed run's rows only)."""
    from pyspark.sql import functions as F

    found = rows.groupBy(*model.key).count().where(F.col("count") > 1).limit(1).collect()
    example = " and ".join(f"{k} = {found[0][k]!r}" for k in model.key) + f" ({found[0]['count']} rows)" if found else ""
    return (f"models.{model.name}: its SELECT yields more than one row for a key ({', '.join(model.key)}) {example}; a "
            f"model's key must name one row. Group the SELECT by the key, or add the columns that tell the rows apart to "
            f"models.{model.name}.key (then recompute it: lakeops etl run {model.name} --full). Nothing was written.")


def _keys_written(catalog: Catalog, config: LakeopsConfig, table: str, snapshot_id: int | None) -> int:
    """Keys the commit recomputed, from its snapshot summary (no Spark job)."""
    snapshot = catalog.load_table(config.identifier(table)).snapshot_by_id(snapshot_id) if snapshot_id else None
    return keys_written(snapshot.summary.additional_properties) if snapshot and snapshot.summary else 0
