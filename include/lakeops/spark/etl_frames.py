"""The frames an ETL run builds, whatever its mode: each source at its range's end, the model's rows checked
against its table, joins on the affected values, and the error of a SELECT that yields two rows for one key."""

from __future__ import annotations

import functools
import operator
from typing import TYPE_CHECKING

from lakeops.config import LakeopsConfig
from lakeops.config.models import ModelConfig
from lakeops.etl.model_columns import check_model_columns
from lakeops.etl.plan import EtlPlan, SourceRange

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession


def ranges(model: ModelConfig, plan: EtlPlan) -> dict[str, SourceRange]:
    """source name (as the model reads it) -> its range in the plan."""
    by_table = {r.source: r for r in plan.ranges}
    return {name: by_table[model.source_table(name)] for name in model.sources}


def source_at(spark: SparkSession, config: LakeopsConfig, r: SourceRange) -> DataFrame:
    """The source at its range's end."""
    return spark.read.option("versionAsOf", str(r.end_snapshot_id)).table(config.qualified(r.source))


def fitted(spark: SparkSession, config: LakeopsConfig, model: ModelConfig, rows: DataFrame) -> DataFrame:
    """The rows, once their columns are known to fit the model's table (lakeops.etl.model_columns; no Spark job)."""
    target = config.qualified(model.table_name)
    check_model_columns(model, rows.columns, target, spark.table(target).columns)
    return rows


def key_columns(model: ModelConfig, name: str) -> list[Column]:
    """The source's recompute values, as columns _lakeops_k<i> (a source may lack a column of that name)."""
    from pyspark.sql import functions as F

    return [F.expr(e).alias(f"_lakeops_k{i}") for i, e in enumerate(model.key_expressions(name).values())]


def key_names(model: ModelConfig) -> list[str]:
    """The names key_columns gives the recompute values, in the order of model.recompute_columns."""
    return [f"_lakeops_k{i}" for i in range(len(model.recompute_columns))]


def join(left: DataFrame, right: DataFrame, columns: list[str], how: str, nullable: set[str], broadcast: bool = False
         ) -> DataFrame:
    """left semi- or anti-joined with right (how: left_semi, left_anti) on the columns both have. A column in
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
    return left.join(other, condition, how)


def duplicate_key_error(model: ModelConfig, rows: DataFrame) -> str:
    """The error of a SELECT that yields several rows for one key, with one such key (found by one more Spark job, on
    the failed run's rows only)."""
    from pyspark.sql import functions as F

    found = rows.groupBy(*model.key).count().where(F.col("count") > 1).limit(1).collect()
    example = " and ".join(f"{k} = {found[0][k]!r}" for k in model.key) + f" ({found[0]['count']} rows)" if found else ""
    return (f"models.{model.name}: its SELECT yields more than one row for a key ({', '.join(model.key)}) {example}; a "
            f"model's key must name one row. Group the SELECT by the key, or add the columns that tell the rows apart to "
            f"models.{model.name}.key (then recompute it: lakeops etl run {model.name} --full). Nothing was written.")
