"""lakeops.read(spark, "ns.table", where="...") (lakeops.reading.read): a DataFrame of a table's matching rows, read through
its zonemap index (lakeops.spark.zonemap_reads). The index decides how: a few small candidate files
read in the driver into a local frame; only the candidate files' tasks, staged from the index; or a
plain Iceberg scan when pruning would not pay. The decision is
logged, and returned by read_explained."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lakeops.zonemap.read_plan import ARROW_MAX_BYTES

if TYPE_CHECKING:
    from pyiceberg.expressions import BooleanExpression
    from pyspark.sql import DataFrame, SparkSession

    from lakeops.config import LakeopsConfig
    from lakeops.spark.zonemap_reads import SparkPrunedRead

log = logging.getLogger(__name__)


def read_explained(spark: SparkSession, table: str, where: str | BooleanExpression | None = None,
                   snapshot: int | None = None, config: LakeopsConfig | None = None,
                   arrow_max_bytes: int = ARROW_MAX_BYTES) -> SparkPrunedRead:
    """The read with its plan (candidates, method, reason). The frame stays readable after return:
    a staged task set is kept for the session (it is small: the candidates' tasks). config: the
    lakeops config (default: the one $LAKEOPS_CONFIG names). Candidates of at most arrow_max_bytes
    are read at once in the driver into a local frame (0: always a lazy Spark scan)."""
    from lakeops.catalog import load_catalog
    from lakeops.config.root import load_config
    from lakeops.spark.zonemap_reads import pruned_frame
    from lakeops.zonemap.where import predicate_of

    config = config or load_config()
    loaded = load_catalog(config.catalog).load_table(config.identifier(table))
    predicate = predicate_of(where, loaded.schema())
    qualified = config.qualified(table)
    context = pruned_frame(spark, qualified, loaded, predicate, snapshot, keep_staged=True, arrow_max_bytes=arrow_max_bytes)
    with context as found:
        return found


def read(spark: SparkSession, table: str, where: str | BooleanExpression | None = None,
         snapshot: int | None = None, config: LakeopsConfig | None = None,
         arrow_max_bytes: int = ARROW_MAX_BYTES) -> DataFrame:
    """The rows of table (namespace.table) matching where (a SQL WHERE string or a pyiceberg expression)."""
    return read_explained(spark, table, where, snapshot, config, arrow_max_bytes).frame
