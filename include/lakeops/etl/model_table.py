"""The table of a model whose config declares no columns for it: created by the model's first run from the columns
its SELECT yields, partitioned by the day of its partition column so that a backfill replaces whole partitions by
metadata. Pure: the Spark job passes the SELECT's (name, type, nullable) columns."""

from __future__ import annotations

import re
from collections.abc import Sequence

from lakeops.config.models import ModelConfig
from lakeops.exceptions import ConfigError
from lakeops.tables.definition import ColumnDef, PartitionField, TableDefinition

_WIDENED = {"tinyint": "int", "smallint": "int"}
"""Spark types Iceberg has no type for, and the Iceberg type a write widens them to."""
_TEXT = re.compile(r"(?:var)?char\(\d+\)")


def _stored_type(spark_type: str) -> str:
    """The column type the table gets for a Spark type (its simpleString): the same, or what Iceberg stores it as."""
    lowered = spark_type.lower()
    return "string" if _TEXT.fullmatch(lowered) else _WIDENED.get(lowered, spark_type)


def model_table_definition(model: ModelConfig, columns: Sequence[tuple[str, str, bool]]) -> TableDefinition:
    """The table for the SELECT's columns (name, Spark type as simpleString, nullable), day(partition_column)."""
    where = f"models.{model.name}"
    fix = (f"name every column of the SELECT with AS and give it a type Iceberg stores, or declare the columns in the "
           f"config's entry for {model.table_name} under tables (create: columns)")
    parsed = []
    for name, spark_type, nullable in columns:
        declaration = _stored_type(spark_type) + ("" if nullable else " not null")
        try:
            parsed.append(ColumnDef.parse(name, declaration, f"{where}: its SELECT's columns"))
        except ConfigError as e:
            raise ConfigError(f"{e}. The model's table does not exist and is created from its SELECT: {fix}") from e
    definition = TableDefinition(tuple(parsed), (PartitionField("day", model.partition_column),))
    try:
        definition.check(f"{where}: the table created from its SELECT", model.key)
    except ConfigError as e:
        raise ConfigError(f"{e}. The SELECT must yield the model's key and partition_column") from e
    return definition
