"""Debezium JSON envelopes -> typed change rows with a `reason` (null for a good change), and the
reduction of a batch to the last change of every key in source order."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lakeops.cdc.sql import LSN, OP, TS_MS
from lakeops.tables.live import LiveColumn

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

OPS = ("c", "u", "d", "r")  # r: a snapshot read, applied like a create


def _path(image: str, name: str) -> str:
    return f"$.{image}['{name}']"


def _typed(image: str, name: str, sql_type: str) -> Column:
    from pyspark.sql import functions as F

    path = _path(image, name)
    if sql_type in ("TIMESTAMP", "TIMESTAMP_NTZ"):  # Debezium sends timestamps as epoch microseconds
        micros = f'timestamp_micros(try_variant_get(v, "{path}", \'bigint\'))'
        return F.expr(micros if sql_type == "TIMESTAMP" else f"CAST({micros} AS TIMESTAMP_NTZ)")
    if sql_type == "DATE":  # and dates as days since the epoch
        return F.expr(f'date_from_unix_date(try_variant_get(v, "{path}", \'int\'))')
    return F.expr(f'try_variant_get(v, "{path}", \'{sql_type}\')')


def parse_changes(raw: DataFrame, columns: tuple[LiveColumn, ...]) -> DataFrame:
    """raw(value, source_file) -> the table's columns taken from the row image (after for c/u/r,
    before for d), plus _op, _lsn, _ts_ms, value, source_file and reason."""
    from pyspark.sql import functions as F

    df = raw.select("value", "source_file", F.expr("try_parse_json(value)").alias("v"))
    op = F.expr("try_variant_get(v, '$.op', 'string')")
    lsn = F.expr("try_variant_get(v, '$.source.lsn', 'bigint')")
    ts_ms = F.expr("try_variant_get(v, '$.ts_ms', 'bigint')")
    parsed = F.col("v").isNotNull()
    known_op = op.isin(*OPS)
    checks = [
        (~parsed, F.lit("malformed JSON: not a parseable JSON document")),
        (parsed & op.isNull(), F.lit("missing required field op")),
        (parsed & op.isNotNull() & ~known_op,
         F.concat(F.lit(f"field op: expected one of {', '.join(OPS)}, got "), F.left(op, F.lit(20)))),
        (parsed & lsn.isNull(), F.lit("missing or non-integer field source.lsn (orders the changes)")),
    ]
    image_present = {}
    for image in ("after", "before"):
        found = f"try_variant_get(v, '$.{image}', 'variant')"
        image_present[image] = F.expr(f"{found} IS NOT NULL AND NOT is_variant_null({found})")
    is_delete = op == F.lit("d")
    checks.append((known_op & is_delete & ~image_present["before"], F.lit("op d without a before image")))
    checks.append((known_op & ~is_delete & ~image_present["after"], F.concat(F.lit("op "), op, F.lit(" without an after image"))))
    values = {}
    for column in columns:
        typed = F.when(is_delete, _typed("before", column.name, column.sql_type)).otherwise(
            _typed("after", column.name, column.sql_type))
        side = F.when(is_delete, F.lit("before")).otherwise(F.lit("after"))
        before = f'try_variant_get(v, "{_path("before", column.name)}", \'variant\')'
        after = f'try_variant_get(v, "{_path("after", column.name)}", \'variant\')'
        raw_value = F.when(is_delete, F.expr(before)).otherwise(F.expr(after))
        present = F.when(raw_value.isNull(), F.lit(False)).otherwise(~F.call_function("is_variant_null", raw_value))
        if column.required:
            checks.append((known_op & ~present, F.concat(F.lit("missing required field "), side, F.lit(f".{column.name}"))))
        checks.append((known_op & present & typed.isNull(), F.concat(
            F.lit("field "), side, F.lit(f".{column.name}: expected {column.sql_type}, got "),
            F.left(F.to_json(raw_value), F.lit(80)))))
        values[column.name] = typed
    reason = F.coalesce(*[F.when(failed, message) for failed, message in checks])
    return df.select("value", "source_file", *[expr.alias(name) for name, expr in values.items()],
                     op.alias(OP), lsn.alias(LSN), ts_ms.alias(TS_MS), reason.alias("reason"))


def last_change_per_key(changes: DataFrame, key: tuple[str, ...]) -> DataFrame:
    """One row per key: its last change by source order (lsn, then ts_ms). Debezium's lsn increases
    across the source's log, so the latest change wins and a final delete deletes."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    order = Window.partitionBy(*[F.col(f"`{k}`") for k in key]).orderBy(F.col(LSN).desc(), F.col(TS_MS).desc_nulls_last())
    return changes.withColumn("_rank", F.row_number().over(order)).where("_rank = 1").drop("_rank")
