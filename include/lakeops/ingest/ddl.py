"""CREATE TABLE statements rendered from the built-in schemas and a table's config: pure."""

from __future__ import annotations

from lakeops.config import LakeopsConfig, TableConfig, partition_source_column
from lakeops.schemas import BUILTIN_SCHEMAS
from lakeops.sql_literals import properties

# write.wap.enabled: batches are staged, then published once under their batch id (exactly once).
BASE_PROPERTIES = {
    "format-version": "2",
    "write.wap.enabled": "true",
    "write.parquet.compression-codec": "zstd",
}


def spark_transform(transform: str) -> str:
    """Config transforms use Iceberg's names; Spark DDL spells the time ones in plural."""
    column = partition_source_column(transform)
    for name in ("year", "month", "day", "hour"):
        if transform.startswith(f"{name}("):
            return f"{name}s({column})"
    return transform


def _create_sql(config: LakeopsConfig, name: str, schema: str, partition_by: tuple[str, ...]) -> str:
    columns = ",\n  ".join(f"{c.name} {c.sql_type}{' NOT NULL' if c.required else ''}" for c in BUILTIN_SCHEMAS[schema])
    sql = f"CREATE TABLE IF NOT EXISTS {config.qualified(name)} (\n  {columns}\n) USING iceberg"
    if partition_by:
        sql += f"\nPARTITIONED BY ({', '.join(spark_transform(t) for t in partition_by)})"
    return sql + f"\nTBLPROPERTIES ({properties(BASE_PROPERTIES)})"


def create_table_sql(config: LakeopsConfig, table: TableConfig) -> str:
    return _create_sql(config, table.name, table.schema, table.partition_by)


def create_quarantine_sql(config: LakeopsConfig, table: TableConfig) -> str:
    """The quarantine table of `table`: unpartitioned, one row per rejected line."""
    return _create_sql(config, table.quarantine_name, "quarantine", ())


def table_ddl(config: LakeopsConfig, table: TableConfig) -> list[str]:
    """Statements that create the table, its write order and its quarantine table, idempotently."""
    statements = [create_table_sql(config, table)]
    if table.sort_by:
        statements.append(f"ALTER TABLE {config.qualified(table.name)} WRITE ORDERED BY {', '.join(table.sort_by)}")
    statements.append(create_quarantine_sql(config, table))
    return statements
