"""An incremental run's work, up to its write (lakeops.spark.etl_replace): each source's changes since its watermark
(lakeops.spark.etl_changes) give the affected values of the model's recompute columns (through the source's key
expressions); the sources are read only for those values, from the files Iceberg's planning keeps for the touched
periods (when the partition column is a recompute column) and for value ranges covering the other affected values
(lakeops.etl.key_ranges); the model's rows for them replace the downstream rows of those values."""

from __future__ import annotations

import dataclasses
import functools
import logging
from typing import TYPE_CHECKING, Any

from lakeops.config import LakeopsConfig
from lakeops.config.models import ModelConfig
from lakeops.etl.diff_files import DiffFiles, diff_files
from lakeops.etl.key_ranges import covering_ranges, range_condition
from lakeops.etl.plan import EtlPlan, SourceRange, full_is_cheaper, period_spans, span_condition
from lakeops.etl.utc import from_micros
from lakeops.spark.etl_changes import CHANGE_TYPE, ChangedFiles, appended, changed_between, changed_rows
from lakeops.spark.etl_frames import fitted, join, key_columns, key_names, ranges, source_at
from lakeops.spark.etl_model import model_rows
from lakeops.spark.etl_replace import Replacement
from lakeops.spark.scan_tasks import StagedReads, filtered_tasks, iceberg_expression, java_table
from lakeops.tables.identifier import quote

if TYPE_CHECKING:
    import pyarrow as pa
    from pyiceberg.catalog import Catalog
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import DataType, StructType

log = logging.getLogger(__name__)


def incremental(spark: SparkSession, catalog: Catalog, config: LakeopsConfig, model: ModelConfig, plan: EtlPlan
                ) -> Replacement | EtlPlan | None:
    """The incremental run's replacement; None when the ranges hold no change; or the plan as a full recompute when that
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
            _release(staged)
            return dataclasses.replace(plan, mode="full", reason=cheaper)
        replacement = _replacement(spark, config, model, plan, changed, staged)
        if replacement is None:
            _release(staged)
        return replacement
    except BaseException:
        _release(staged)
        raise


def _release(staged: list[StagedReads]) -> None:
    for reads in staged:
        reads.release()


def _diffs_by_metadata(catalog: Catalog, config: LakeopsConfig, model: ModelConfig, plan: EtlPlan
                       ) -> dict[str, tuple[DiffFiles | None, int | None]]:
    """Each changelog source with a range -> (the files its diff reads, as pyiceberg finds them from metadata, None
    where it cannot (lakeops.etl.diff_files); the source's live bytes at the range's end, None when unknown)."""
    found = {}
    for name, r in ranges(model, plan).items():
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
    for name, r in ranges(model, plan).items():
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
    by_name = ranges(model, plan)
    for name, (read, live) in counted.items():
        reason = full_is_cheaper(by_name[name].source, read, live, model.full_recompute_share)
        if reason:
            return reason
    return None


def _changes(spark: SparkSession, config: LakeopsConfig, model: ModelConfig, name: str, r: SourceRange,
             changed: dict[str, tuple[StagedReads, ChangedFiles]]) -> DataFrame:
    table = config.qualified(r.source)
    assert r.end_snapshot_id is not None
    if model.source(name).kind == "append":
        return appended(spark, table, r.start_snapshot_id, r.end_snapshot_id)
    staged, files = changed[name]
    # Only the changed rows' recompute values are needed here, not which change each is: no key, no pairing, and
    # the rows of the files live at both snapshots are told apart by position.
    assert r.start_snapshot_id is not None  # a changelog source's range in an incremental plan
    return changed_rows(staged, table, r.start_snapshot_id, r.end_snapshot_id, files)


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


def _replacement(spark: SparkSession, config: LakeopsConfig, model: ModelConfig, plan: EtlPlan,
                 changed_files: dict[str, tuple[StagedReads, ChangedFiles]], staged: list[StagedReads]
                 ) -> Replacement | None:
    by_name = ranges(model, plan)
    changed = {name: r for name, r in by_name.items() if r.start_snapshot_id != r.end_snapshot_id}
    deltas = {name: _changes(spark, config, model, name, r, changed_files) for name, r in changed.items()}
    appends = {name: deltas[name].drop(CHANGE_TYPE) for name in changed if model.source(name).kind == "append"}
    names = key_names(model)
    affected_parts = [(appends[name] if name in appends else deltas[name]).select(*key_columns(model, name)) for name in changed]
    distinct = functools.reduce(lambda a, b: a.unionByName(b), affected_parts).distinct()
    # The affected values go to the driver in one action: their periods and ranges are found there, and the source
    # reads and the replacement's joins share one broadcast of them.
    held, schema = distinct.toArrow(), distinct.schema
    if not held.num_rows:
        return None
    # A NULL among the affected values is a value like any other: the matches on its column are null-safe, and its
    # range condition keeps the rows where it is NULL. A NULL period has no span: such a run reads every period.
    nulls = {column for column, name in zip(model.recompute_columns, names, strict=True) if held.column(name).null_count}
    partition = model.recompute_columns.index(model.partition_column) \
        if model.span_pruning and model.partition_column not in nulls else None
    values: list[Any] = [] if partition is None else distinct_values(
        held.column(names[partition]), schema[names[partition]].dataType)
    affected = spark.createDataFrame(held, schema=schema)
    spans = period_spans(values, model.partition_grain) if partition is not None else []
    covered = _key_ranges(model, held, schema, skip=model.partition_column if spans else None)
    confined = [f"{len(c)} range(s) of {column} from {c[0][0]} to {c[-1][1]}" for column, c in covered.items() if c]
    confined += [f"NULL {column}" for column in sorted(nulls)]
    if spans:
        confined.insert(0, f"{len(spans)} span(s) of {model.partition_column}")
    log.info("%s: %d affected values; reads confined to %s", model.name, held.num_rows, "; ".join(confined) or "no range")
    null_keys = {k for k, c in zip(names, model.recompute_columns, strict=True) if c in nulls}
    inputs = {}
    for name, r in by_name.items():
        column = model.source(name).time_column
        conditions = [span_condition(quote(column), spans)] if spans and column else []
        expressions = model.key_expressions(name)
        conditions += [range_condition(quote(expressions[recompute]), covering, recompute in nulls)
                       for recompute, covering in covered.items()
                       if _is_column(expressions[recompute])]  # a plain column, whose file bounds Iceberg prunes with
        keyed = _pruned(spark, config, r, conditions, staged).select("*", *key_columns(model, name))
        inputs[name] = join(keyed, affected, names, "left_semi", null_keys, broadcast=True).drop(*names)
    rows = fitted(spark, config, model, model_rows(spark, model, inputs))
    condition = [span_condition(quote(model.partition_column), spans)] if spans else []
    condition += [range_condition(quote(c), covering, c in nulls) for c, covering in covered.items()]
    return Replacement(rows, affected, " AND ".join(f"({c})" for c in condition), narrow=not spans,
                       nulls=frozenset(null_keys), staged=tuple(staged))


def _is_column(expression: str) -> bool:
    """Whether a key expression is a plain column name (not a function of columns)."""
    return expression.replace("_", "a").isalnum()


def _pruned(spark: SparkSession, config: LakeopsConfig, r: SourceRange, conditions: list[str],
            staged: list[StagedReads]) -> DataFrame:
    """The source at its range's end (under its current schema when conditions prune it), read from the files Iceberg's
    planning keeps for the conditions. They prune files only: the semi-join on the affected values picks the rows, so
    no value of the run enters the Spark plan (lakeops.spark.etl_replace). The staged reads are appended to `staged`."""
    if not conditions:
        return source_at(spark, config, r)
    table = config.qualified(r.source)
    reads = StagedReads(spark, table, java_table(spark, table))
    staged.append(reads)
    expression = iceberg_expression(spark, table, " AND ".join(f"({c})" for c in conditions))
    return reads.read_java(filtered_tasks(spark, reads.jtable, r.end_snapshot_id, expression))


def _key_ranges(model: ModelConfig, held: pa.Table, schema: StructType, skip: str | None) -> dict[str, list[tuple[Any, Any]]]:
    """Recompute column -> ranges covering its affected values (lakeops.etl.key_ranges), for each column but `skip`
    (the partition column, when the touched periods confine the run already) whose type Iceberg prunes by."""
    from pyspark.sql.types import DateType, DecimalType, IntegralType, StringType, TimestampType

    found = {}
    for column, name in zip(model.recompute_columns, key_names(model), strict=True):
        data_type = schema[name].dataType
        if column != skip and isinstance(data_type, (IntegralType, DecimalType, DateType, TimestampType, StringType)):
            found[column] = covering_ranges(distinct_values(held.column(name), data_type))
    return found
