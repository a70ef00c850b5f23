"""CREATE TABLE statements for the tables lakeops creates, rendered from their config `create` block,
and for each ingested table's quarantine table (lakeops' own, fixed columns): pure."""

from __future__ import annotations

from lakeops.config import LakeopsConfig, TableConfig
from lakeops.exceptions import ConfigError
from lakeops.sql_literals import properties as sql_properties
from lakeops.tables.definition import ColumnDef, TableDefinition
from lakeops.tables.identifier import quote

# write.wap.enabled: batches are staged, then published once under their batch id (exactly once).
BASE_PROPERTIES = {
    "format-version": "2",
    "write.wap.enabled": "true",
    "write.parquet.compression-codec": "zstd",
}

QUARANTINE_COLUMNS = (
    ColumnDef("table_name", "STRING", True),
    ColumnDef("batch_id", "STRING", True),
    ColumnDef("source_file", "STRING", True),
    ColumnDef("raw_line", "STRING"),
    ColumnDef("reason", "STRING", True),
    ColumnDef("quarantined_at", "TIMESTAMP", True),
)
"""One row per rejected input line: which table and batch, where it came from, the line, and why."""


def _create_sql(qualified: str, columns: tuple[ColumnDef, ...], partitioned: tuple[str, ...], properties: dict[str, str]) -> str:
    body = ",\n  ".join(c.ddl() for c in columns)
    sql = f"CREATE TABLE IF NOT EXISTS {qualified} (\n  {body}\n) USING iceberg"
    if partitioned:
        sql += f"\nPARTITIONED BY ({', '.join(partitioned)})"
    return sql + f"\nTBLPROPERTIES ({sql_properties(properties)})"


def create_table_sql(config: LakeopsConfig, table: TableConfig, derived: TableDefinition | None = None) -> str:
    """The table as its `create` block declares it, else as `derived` (a model's table, from its SELECT); a table
    with neither must exist already."""
    definition = table.create or derived
    if definition is None:
        raise ConfigError(f"table {table.name} does not exist and its config entry has no `create` block; create the "
                          f"table with the engine that writes it, or declare its columns under tables.{table.name}.create")
    return _create_sql(config.qualified(table.name), definition.columns,
                       tuple(p.spark_ddl() for p in definition.partition_by),
                       {**BASE_PROPERTIES, **definition.properties})


def create_quarantine_sql(config: LakeopsConfig, table: TableConfig) -> str:
    """The quarantine table of `table`: unpartitioned, one row per rejected line."""
    return _create_sql(config.qualified(table.quarantine_name), QUARANTINE_COLUMNS, (), BASE_PROPERTIES)


def table_ddl(config: LakeopsConfig, table: TableConfig) -> list[str]:
    """Statements that create the namespace, the table, its key and write order, and its quarantine table,
    idempotently."""
    qualified = config.qualified(table.name)
    statements = [f"CREATE NAMESPACE IF NOT EXISTS {table.id.spark_namespace(config.catalog.name)}",
                  create_table_sql(config, table)]
    assert table.create is not None
    if table.key:
        statements.append(f"ALTER TABLE {qualified} SET IDENTIFIER FIELDS {', '.join(quote(c) for c in table.key)}")
    if table.create.sort_by:
        statements.append(f"ALTER TABLE {qualified} WRITE ORDERED BY {', '.join(quote(c) for c in table.create.sort_by)}")
    statements.append(create_quarantine_sql(config, table))
    return statements
