"""What a CDC table is keyed on, the properties that make its writes merge-on-read, and the MERGE
statement that applies a batch of changes: pure, no Spark."""

from __future__ import annotations

from lakeops.exceptions import ConfigError
from lakeops.sql_literals import literal
from lakeops.tables.identifier import quote

# Merge-on-read: row-level changes write delete files, which compaction folds back into data files.
MERGE_ON_READ_PROPERTIES = {
    "write.merge.mode": "merge-on-read",
    "write.update.mode": "merge-on-read",
    "write.delete.mode": "merge-on-read",
}

# Columns the parsed change carries besides the table's own.
OP, LSN, TS_MS, KIND, NEW_FIELDS, UNAVAILABLE = "_op", "_pos", "_ts_ms", "_kind", "_new_fields", "_unavailable"


def cdc_key(configured: tuple[str, ...], identifier_fields: tuple[str, ...], table: str) -> tuple[str, ...]:
    """The row key changes are merged on: the config's `key`, else the table's identifier fields."""
    key = configured or identifier_fields
    if not key:
        raise ConfigError(f"table {table} has no key to merge changes on: set `key: [column, ...]` in its config entry, or "
                          f"give the table identifier fields (ALTER TABLE {table} SET IDENTIFIER FIELDS column)")
    return key


def merge_sql(target: str, source_view: str, columns: tuple[str, ...], key: tuple[str, ...], truncate: bool = False,
              keep_unavailable: bool = False) -> str:
    """Apply one change per key (already reduced to the last one in source order) to target.

    A delete removes the row, any other op upserts the after image; a delete of a key the table
    does not hold is a no-op (the key was created and deleted inside the batch, or never seen).
    truncate: the batch holds an applied truncate and the source view only the changes after it, so
    every row the view does not name is deleted too, in the same commit.
    keep_unavailable: the view's _unavailable column lists, per change, the columns the source did not send (Debezium's
    placeholder); an update keeps the target's value for those (no insert carries one: such changes were set aside)."""
    on = " AND ".join(f"t.{quote(k)} = s.{quote(k)}" for k in key)

    def updated(column: str) -> str:
        if not keep_unavailable:
            return f"s.{quote(column)}"
        return (f"CASE WHEN array_contains(s.{UNAVAILABLE}, {literal(column)}) "
                f"THEN t.{quote(column)} ELSE s.{quote(column)} END")

    updates = ", ".join(f"t.{quote(c)} = {updated(c)}" for c in columns if c not in key)
    names = ", ".join(quote(c) for c in columns)
    return (
        f"MERGE INTO {target} t USING {source_view} s ON {on}\n"
        f"WHEN MATCHED AND s.{OP} = 'd' THEN DELETE\n"
        f"WHEN MATCHED THEN UPDATE SET {updates}\n"
        f"WHEN NOT MATCHED AND s.{OP} <> 'd' THEN INSERT ({names}) "
        f"VALUES ({', '.join(f's.{quote(c)}' for c in columns)})"
        + ("\nWHEN NOT MATCHED BY SOURCE THEN DELETE" if truncate else "")
    )
