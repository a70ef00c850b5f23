"""Debezium records -> typed change rows, in a Python UDF around the pure decoder (lakeops.cdc.decode), and the
reduction of a batch to the last change of every key in source order."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lakeops.cdc.decode import ChangeDecoder, TargetColumn
from lakeops.cdc.sql import KIND, LSN, NEW_FIELDS, OP, TS_MS, UNAVAILABLE
from lakeops.config.sources import CdcConfig
from lakeops.tables.identifier import quote
from lakeops.tables.live import LiveColumn

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def _struct_ddl(columns: tuple[LiveColumn, ...]) -> str:
    return ", ".join(f"{quote(c.name)}: {c.sql_type}" for c in columns)


def parse_changes(raw: DataFrame, columns: tuple[LiveColumn, ...], key: tuple[str, ...], settings: CdcConfig,
                  unknown_fields: str, table: str) -> DataFrame:
    """raw(value, source_file) -> value, source_file, the table's columns (from the row image: after for c/u/r,
    the key from before for d), _op, _pos (sorts in source order), _ts_ms, _kind (change, truncate, invalid or a
    skipped kind), reason (why an invalid record cannot be applied), _new_fields (evolve candidates) and _unavailable
    (the columns the source sent Debezium's unavailable-value placeholder for: null here, kept from the table)."""
    from pyspark.sql import functions as F

    targets = tuple(TargetColumn.of(c.name, c.sql_type, c.required) for c in columns)
    names = [c.name for c in columns]

    decoder = ChangeDecoder(targets, key, settings, unknown_fields, table)

    def decode(value):  # no type hints: pyspark would read them as a pandas UDF's

        decoded = decoder.decode(value)
        values = decoded.values or {}
        return (decoded.kind, decoded.op, decoded.position, decoded.ts_ms, decoded.reason,
                [{"name": n, "type": t} for n, t in decoded.new_fields], list(decoded.unavailable),
                tuple(values.get(n) for n in names))

    returns = ("kind STRING, op STRING, pos STRING, ts_ms BIGINT, reason STRING, new_fields ARRAY<STRUCT<name: STRING, "
               f"type: STRING>>, unavailable ARRAY<STRING>, row STRUCT<{_struct_ddl(columns)}>")
    udf = F.udf(decode, returns)
    decoded = raw.select("value", "source_file", udf(F.col("value")).alias("d"))
    return decoded.select("value", "source_file", *[F.col("d.row").getField(n).alias(n) for n in names],
                          F.col("d.op").alias(OP), F.col("d.pos").alias(LSN), F.col("d.ts_ms").alias(TS_MS),
                          F.col("d.kind").alias(KIND), F.col("d.reason").alias("reason"),
                          F.col("d.new_fields").alias(NEW_FIELDS), F.col("d.unavailable").alias(UNAVAILABLE))


def last_change_per_key(changes: DataFrame, key: tuple[str, ...], columns: tuple[str, ...] = ()) -> DataFrame:
    """One row per key: its last change in source order (_pos, then ts_ms), so the latest change wins and a final
    delete deletes. columns: those the batch holds unavailable-value placeholders for; such a column of the last
    change takes the value of the latest earlier change of its key that sent one, and stays in _unavailable (kept
    from the table by the MERGE) only when none did."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    by_key = Window.partitionBy(*[F.col(quote(k)) for k in key])
    order = by_key.orderBy(F.col(LSN).desc(), F.col(TS_MS).desc_nulls_last())
    if columns:
        earlier = by_key.orderBy(F.col(LSN), F.col(TS_MS).asc_nulls_first()).rowsBetween(Window.unboundedPreceding,
                                                                                           Window.currentRow)
        for column in columns:
            sent = (F.col(OP) != "d") & ~F.array_contains(F.col(UNAVAILABLE), column)
            last_sent = F.last(F.when(sent, F.struct(F.col(quote(column)).alias("v"))), ignorenulls=True).over(earlier)
            changes = changes.withColumn(f"_sent_{column}", last_sent)
        filled = [F.when(F.col(f"_sent_{c}").isNotNull(), F.col(f"_sent_{c}.v")).otherwise(F.col(quote(c))).alias(c)
                  for c in columns]
        not_sent = F.array(*[F.when(F.col(f"_sent_{c}").isNull(), F.lit(c)) for c in columns])
        still = F.filter(F.col(UNAVAILABLE), lambda c: F.coalesce(F.array_contains(not_sent, c), F.lit(False)))
        others = [F.col(quote(c)) for c in changes.columns
                  if c not in columns and c != UNAVAILABLE and not c.startswith("_sent_")]
        changes = changes.select(*others, *filled, still.alias(UNAVAILABLE))
    return changes.withColumn("_rank", F.row_number().over(order)).where("_rank = 1").drop("_rank")
