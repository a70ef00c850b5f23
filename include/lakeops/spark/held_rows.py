"""A DataFrame over rows the driver already holds as Arrow (a local relation): toArrow() returns those rows as
Spark would give them, without the Spark job Spark runs to collect any frame as Arrow. Spark's own collect()
of a local relation runs no job either; this gives toArrow() the same. The Java frame is made on the first use
that needs one, so a caller that only takes the rows as Arrow never pays for it. Every transformation of the
frame returns a plain DataFrame, which Spark runs as usual."""

from __future__ import annotations

import logging
import os
from tempfile import NamedTemporaryFile
from typing import TYPE_CHECKING, Any, cast

from py4j.protocol import Py4JError
from pyspark.sql.classic.dataframe import DataFrame

from lakeops.spark.session import jvm

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession
    from pyspark.sql.conf import RuntimeConfig
    from pyspark.sql.types import StructType

log = logging.getLogger(__name__)

_SQL_UTILS = "org.apache.spark.sql.api.python.PythonSQLUtils"


class HeldRowsFrame(DataFrame):
    """spark.createDataFrame(rows, schema), which keeps rows for toArrow() and makes its Java frame when first used."""

    _held: pa.Table | None
    """the rows as Spark's toArrow() gives them for the frame's schema (None: they do not cast to it)"""
    _rows: pa.Table
    """the rows as given, which the Java frame is made of"""

    @classmethod
    def of(cls, spark: SparkSession, rows: pa.Table, schema: StructType) -> HeldRowsFrame:
        """The frame. When the rows do not cast to the Arrow schema Spark gives schema as they are (say, timestamps
        finer than Spark's), its Java frame is made at once, so that what pyarrow or Spark raise on such rows is
        raised here, and toArrow() is Spark's own."""
        import pyarrow as pa
        from pyspark.sql.pandas.types import to_arrow_schema

        frame = cls(None, spark)  # a classic session's frame; its Java frame comes with the first _jdf
        frame.__dict__["schema"] = schema  # DataFrame.schema is a cached property; the JVM would give the same
        frame._rows = rows
        target = to_arrow_schema(schema, error_on_duplicated_field_names_in_struct=True,
                                 prefers_large_types=_large_var_types(spark.conf))
        try:
            frame._held = rows.cast(target)
        except (pa.ArrowException, TypeError, ValueError) as e:
            log.info("held rows do not cast to Spark's Arrow schema (%s); Spark collects them", e)
            frame._held = None
            frame._jdf  # noqa: B018 - made now: the caller learns here whether Spark takes these rows
        return frame

    @property
    def _jdf(self) -> Any:
        """The Java frame, made of the rows the first time PySpark asks for it."""
        made = self.__dict__.get("_java_frame")
        if made is None:
            made = self.__dict__["_java_frame"] = _local_relation(self._session, self._rows, self.schema)
        return made

    @_jdf.setter
    def _jdf(self, value: Any) -> None:
        self.__dict__["_java_frame"] = value

    def toArrow(self) -> pa.Table:
        """The held rows, as Spark's toArrow() gives them: no Java frame, no job (Spark's own toArrow() when they
        do not cast to its Arrow schema)."""
        return self._held if self._held is not None else super().toArrow()


def _local_relation(spark: SparkSession, rows: pa.Table, schema: StructType) -> Any:
    """The Java DataFrame spark.createDataFrame(rows, schema) makes, in five calls to the JVM instead of about
    twenty (lakeops.spark.held_rows._in_five_calls). createDataFrame itself with encrypted I/O (no file may hold
    the rows), or where this PySpark's internals are not those the shorter path follows (PySpark 4.1)."""
    global _FELL_BACK
    if not spark.sparkContext._encryption_enabled:
        try:
            return _in_five_calls(spark, rows, schema)
        except (ImportError, AttributeError, Py4JError) as e:
            if not _FELL_BACK:
                log.warning("local frames are made by spark.createDataFrame: this PySpark's Arrow conversion differs "
                            "from the one lakeops follows (%s: %s)", type(e).__name__, e)
            _FELL_BACK = True
    return spark.createDataFrame(rows, schema=schema)._jdf


_FELL_BACK = False


def _in_five_calls(spark: SparkSession, rows: pa.Table, schema: StructType) -> Any:
    """createDataFrame's own steps for an Arrow table (the session's time zone applied to the timestamps, the rows
    cast to the schema's Arrow types, handed to the JVM in batches through a file), with each setting read once
    and Spark's helper class looked up once: each JVM call is a round trip, a large part of the conversion's time
    on a selective read."""
    from pyspark.sql.pandas.serializers import ArrowStreamSerializer
    from pyspark.sql.pandas.types import _check_arrow_table_timestamps_localize, to_arrow_schema

    context = spark.sparkContext
    conf = spark.conf
    timezone = conf.get("spark.sql.session.timeZone")
    large = _large_var_types(conf)
    per_batch = int(conf.get("spark.sql.execution.arrow.maxRecordsPerBatch") or 0)
    arrow = _check_arrow_table_timestamps_localize(rows, schema, True, timezone).cast(
        to_arrow_schema(schema, error_on_duplicated_field_names_in_struct=True, prefers_large_types=large))
    batches = arrow.to_batches(max_chunksize=per_batch if per_batch > 0 else None)
    utils = _sql_utils(spark)
    with NamedTemporaryFile(delete=False, dir=context._temp_dir) as stream:
        try:
            ArrowStreamSerializer().dump_stream(batches, stream)
            stream.close()
            batches_in_jvm = utils.readArrowStreamFromFile(stream.name)
        finally:
            os.unlink(stream.name)
    return utils.toDataFrame(batches_in_jvm, schema.json(), spark._jsparkSession)


def _large_var_types(conf: RuntimeConfig) -> bool:
    """Whether the session's Arrow conversion uses large string and binary types."""
    return str(conf.get("spark.sql.execution.arrow.useLargeVarTypes")).lower() == "true"


def _sql_utils(spark: SparkSession) -> Any:
    """Spark's PythonSQLUtils class in the driver JVM, looked up once per gateway (each lookup is a round trip)."""
    global _UTILS
    jvm(spark)  # a classic session's, or a clear error
    gateway = cast(Any, spark.sparkContext._gateway)
    if _UTILS is None or _UTILS[0] is not gateway:
        from py4j.java_gateway import JavaClass

        _UTILS = (gateway, JavaClass(_SQL_UTILS, gateway._gateway_client))
    return _UTILS[1]


_UTILS: tuple[Any, Any] | None = None
