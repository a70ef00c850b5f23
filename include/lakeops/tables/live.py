"""What Iceberg says about a table at run time: its columns (with Spark SQL types), partition fields,
sort order and key. Policies name columns; they are resolved here by field id against the live schema."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakeops.exceptions import ConfigError

if TYPE_CHECKING:
    from pyiceberg.schema import Schema
    from pyiceberg.table import Table
    from pyiceberg.types import IcebergType


def spark_type(kind: IcebergType) -> str:
    """The Spark SQL type Iceberg's Spark runtime reads an Iceberg type as."""
    from pyiceberg import types as t

    simple = {t.BooleanType: "BOOLEAN", t.IntegerType: "INT", t.LongType: "BIGINT", t.FloatType: "FLOAT",
              t.DoubleType: "DOUBLE", t.DateType: "DATE", t.StringType: "STRING", t.UUIDType: "STRING",
              t.BinaryType: "BINARY", t.FixedType: "BINARY", t.TimestamptzType: "TIMESTAMP",
              t.TimestampType: "TIMESTAMP_NTZ", t.TimeType: "BIGINT"}
    for cls, name in simple.items():
        if isinstance(kind, cls):
            return name
    if isinstance(kind, t.DecimalType):
        return f"DECIMAL({kind.precision}, {kind.scale})"
    if isinstance(kind, t.ListType):
        return f"ARRAY<{spark_type(kind.element_type)}>"
    if isinstance(kind, t.MapType):
        return f"MAP<{spark_type(kind.key_type)}, {spark_type(kind.value_type)}>"
    if isinstance(kind, t.StructType):
        return "STRUCT<" + ", ".join(f"{f.name}: {spark_type(f.field_type)}" for f in kind.fields) + ">"
    name = type(kind).__name__
    if "Timestamp" in name:  # format v3 nanosecond timestamps
        return "TIMESTAMP" if "tz" in name.lower() else "TIMESTAMP_NTZ"
    raise ConfigError(f"column type {kind} has no Spark SQL equivalent lakeops can write; exclude the column from ingest")


@dataclass(frozen=True)
class LiveColumn:
    """A top-level column of the table's current schema."""

    field_id: int
    name: str
    sql_type: str
    required: bool


def live_columns(schema: Schema) -> tuple[LiveColumn, ...]:
    return tuple(LiveColumn(f.field_id, f.name, spark_type(f.field_type), f.required) for f in schema.fields)


def resolve_columns(schema: Schema, names: tuple[str, ...] | list[str], what: str, table: str) -> dict[str, int]:
    """Each named column's field id in the live schema; a missing one fails with the table's actual columns."""
    ids = {}
    for name in names:
        try:
            ids[name] = schema.find_field(name, case_sensitive=True).field_id
        except ValueError:
            actual = ", ".join(f.name for f in schema.fields)
            raise ConfigError(f"{what} of table {table} names column {name!r}, which the table does not have; "
                              f"its columns are: {actual}. Fix the setting (config or table property)") from None
    return ids


@dataclass(frozen=True)
class LivePartitionField:
    """A field of the table's current partition spec: its name in partition tuples, source column and transform."""

    name: str
    source_column: str
    transform: str
    """pyiceberg's transform name: identity, day, bucket[16], void, ..."""


def partition_fields(table: Table) -> tuple[LivePartitionField, ...]:
    schema, spec = table.schema(), table.spec()
    return tuple(LivePartitionField(f.name, schema.find_column_name(f.source_id) or f"field {f.source_id}", str(f.transform))
                 for f in spec.fields)


def sort_columns(table: Table) -> tuple[str, ...]:
    """The columns of the table's sort order, in order (identity transforms only)."""
    schema = table.schema()
    columns = []
    for field in table.sort_order().fields:
        if str(field.transform) == "identity" and (name := schema.find_column_name(field.source_id)):
            columns.append(name)
    return tuple(columns)


def key_columns(table: Table) -> tuple[str, ...]:
    """The table's identifier fields (its row key), in schema order."""
    schema = table.schema()
    ids = set(schema.identifier_field_ids)
    return tuple(f.name for f in schema.fields if f.field_id in ids)
