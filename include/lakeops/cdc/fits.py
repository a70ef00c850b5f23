"""Whether a field's Kafka Connect schema (the event's schema part) is one the target column can hold: a source
column whose type changed to one Iceberg cannot widen the column to (int or decimal to text, a number to a
timestamp) is caught from the schema, whatever its value, and quarantined with the field, the source type and
the column type. Pure.

The rule is by kind: a column takes the Connect types lakeops decodes into it (lakeops.cdc.values). A decimal
sent as a string or a double (decimal.handling.mode=string or double) names no logical type, so it is told from a
type change by the table's ingest.cdc.decimal_handling_mode. A string column takes any type (as text)."""

from __future__ import annotations

from typing import Any

from lakeops.cdc.sqltype import SqlType
from lakeops.cdc.values import (
    DATES,
    DECIMAL,
    INTEGER_RANGES,
    MILLI_TIMES,
    MILLI_TIMESTAMPS,
    VARIABLE_DECIMAL,
)
from lakeops.config.sources import CdcConfig

INTEGERS = ("int8", "int16", "int32", "int64")
FLOATS = ("float32", "float64")
TIMES = (*MILLI_TIMES, "io.debezium.time.MicroTime", "io.debezium.time.NanoTime")
TIMESTAMPS = (*MILLI_TIMESTAMPS, "io.debezium.time.MicroTimestamp", "io.debezium.time.NanoTimestamp",
              "io.debezium.time.ZonedTimestamp", "io.debezium.time.IsoTimestamp")
DECIMALS = (DECIMAL, VARIABLE_DECIMAL)


def source_type(schema: dict[str, Any]) -> str:
    """The field's Connect type as a reason shows it: int32, string, bytes (org.apache.kafka.connect.data.Decimal)."""
    kind, name = schema.get("type"), schema.get("name")
    return f"{kind} ({name})" if name else str(kind)


def fits(schema: dict[str, Any], column: SqlType, settings: CdcConfig) -> bool:
    """Whether values of a field with this Connect schema can be written to a column of this type."""
    kind, name = schema.get("type"), schema.get("name")
    target = column.name
    if target == "STRING" or kind is None:
        return True
    # An integer that counts something (a Time microseconds since midnight, a MicroDuration, a Year), not a day.
    counted = kind in INTEGERS and name not in (*DATES, *TIMESTAMPS)
    if target in INTEGER_RANGES:
        return counted
    if target in ("FLOAT", "DOUBLE"):
        return (counted and name not in TIMES) or (kind in FLOATS and not name) or name in DECIMALS
    if target == "DECIMAL":
        if name in DECIMALS or (counted and name not in TIMES):
            return True
        return not name and ((kind == "string" and settings.decimal_handling_mode == "string")
                             or (kind in FLOATS and settings.decimal_handling_mode == "double"))
    if target == "BOOLEAN":
        return kind == "boolean"
    if target == "BINARY":
        return (kind == "bytes" and name not in DECIMALS) or (kind == "string" and not name)
    if target == "DATE":
        return name in DATES or name == "io.debezium.time.IsoDate" or name in TIMESTAMPS
    if target in ("TIMESTAMP", "TIMESTAMP_NTZ"):
        return name in TIMESTAMPS
    if target == "ARRAY":
        return kind == "array"
    if target == "MAP":
        return kind == "map"
    if target == "STRUCT":
        return kind == "struct"
    return True


def misfit_hint(schema: dict[str, Any], column: SqlType) -> str:
    """How to fix a field whose type the column cannot hold."""
    kind = schema.get("type")
    if column.name == "DECIMAL" and not schema.get("name") and kind in ("string", *FLOATS):
        mode = "string" if kind == "string" else "double"
        return (f"if the connector sends decimals as {'strings' if mode == 'string' else 'doubles'} "
                f"(decimal.handling.mode={mode}), set ingest.cdc.decimal_handling_mode: {mode}; else change the column's "
                "type to one that holds the source's")
    return "change the column's type to one that holds the source's (Iceberg widens only int to bigint, float to " \
           "double and a decimal's precision), or replay the table"
