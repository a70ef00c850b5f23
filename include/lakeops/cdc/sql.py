"""What a CDC table is keyed on, the properties that make its writes merge-on-read, and the MERGE
statement that applies a batch of changes: pure, no Spark."""

from __future__ import annotations

from lakeops.exceptions import ConfigError
from lakeops.schemas import BUILTIN_SCHEMAS

# The primary key of every built-in schema a CDC stream feeds.
CDC_KEYS = {"users": "user_id", "orders": "order_id"}

# Merge-on-read: row-level changes write delete files, which compaction folds back into data files.
MERGE_ON_READ_PROPERTIES = {
    "write.merge.mode": "merge-on-read",
    "write.update.mode": "merge-on-read",
    "write.delete.mode": "merge-on-read",
}

# Columns the parsed change carries besides the table's own.
OP, LSN, TS_MS = "_op", "_lsn", "_ts_ms"


def cdc_key(schema: str) -> str:
    try:
        return CDC_KEYS[schema]
    except KeyError:
        raise ConfigError(f"schema {schema!r} has no CDC key; CDC ingest supports the schemas {', '.join(CDC_KEYS)}") from None


def merge_sql(target: str, source_view: str, schema: str) -> str:
    """Apply one change per key (already reduced to the last one in source order) to target.

    A delete removes the row, any other op upserts the after image; a delete of a key the table
    does not hold is a no-op (the key was created and deleted inside the batch, or never seen)."""
    key = cdc_key(schema)
    columns = [c.name for c in BUILTIN_SCHEMAS[schema]]
    updates = ", ".join(f"t.{c} = s.{c}" for c in columns if c != key)
    return (
        f"MERGE INTO {target} t USING {source_view} s ON t.{key} = s.{key}\n"
        f"WHEN MATCHED AND s.{OP} = 'd' THEN DELETE\n"
        f"WHEN MATCHED THEN UPDATE SET {updates}\n"
        f"WHEN NOT MATCHED AND s.{OP} <> 'd' THEN INSERT ({', '.join(columns)}) "
        f"VALUES ({', '.join(f's.{c}' for c in columns)})"
    )
