"""A DataFrame over rows the driver already holds as Arrow (a local relation): toArrow() returns those rows as
Spark would give them, without the Spark job Spark runs to collect any frame as Arrow. Spark's own collect()
of a local relation runs no job either; this gives toArrow() the same. Every transformation of the frame
returns a plain DataFrame, which Spark runs as usual."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from pyspark.sql.classic.dataframe import DataFrame

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession
    from pyspark.sql.types import StructType

log = logging.getLogger(__name__)


class HeldRowsFrame(DataFrame):
    """spark.createDataFrame(rows, schema), which also keeps rows for toArrow()."""

    _held: pa.Table

    @classmethod
    def of(cls, spark: SparkSession, rows: pa.Table, schema: StructType) -> HeldRowsFrame:
        local = spark.createDataFrame(rows, schema=schema)
        frame = cls(local._jdf, spark)  # a classic session's frame
        frame._held = rows
        return frame

    def toArrow(self) -> pa.Table:
        """The held rows in the Arrow schema Spark's toArrow() gives this frame's schema; Spark's own
        toArrow() (a job) when they do not cast to it."""
        import pyarrow as pa
        from pyspark.sql.pandas.types import to_arrow_schema

        target = to_arrow_schema(self.schema, error_on_duplicated_field_names_in_struct=True,
                                 prefers_large_types=self.sparkSession._jconf.arrowUseLargeVarTypes())
        try:
            return self._held.cast(target)
        except (pa.ArrowException, TypeError, ValueError) as e:
            log.info("held rows do not cast to Spark's Arrow schema (%s); Spark collects them", e)
            return super().toArrow()
