"""lakeops: keeps streaming-fed Apache Iceberg tables fast, fresh and correct."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyiceberg.expressions import BooleanExpression
    from pyspark.sql import DataFrame, SparkSession

    from lakeops.config import LakeopsConfig

__version__ = "0.1.0"


def read(spark: SparkSession, table: str, where: str | BooleanExpression | None = None,
         snapshot: int | None = None, config: LakeopsConfig | None = None) -> DataFrame:
    """The rows of table ("namespace.table") matching where (a SQL WHERE string or a pyiceberg
    expression) as a Spark DataFrame, read through the table's zonemap index (lakeops.reading)."""
    from lakeops.reading import read as _read

    return _read(spark, table, where, snapshot, config)
