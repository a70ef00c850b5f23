"""Built-in table schemas, named by the `schema` key of a table in the config file.

Each column is (name, Spark SQL type, required). The same definition renders the
CREATE TABLE statement and tells the config validator which columns exist.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    name: str
    sql_type: str
    required: bool = False


EVENTS = (
    Column("event_id", "STRING", True),
    Column("user_id", "BIGINT", True),
    Column("session_id", "STRING", True),
    Column("event_time", "TIMESTAMP", True),
    Column("event_type", "STRING", True),
    Column("page", "STRING"),
    Column("device", "STRING"),
    Column("country", "STRING"),
    Column("properties", "MAP<STRING, STRING>"),
    Column("ingested_at", "TIMESTAMP", True),
)

USERS = (
    Column("user_id", "BIGINT", True),
    Column("email", "STRING"),
    Column("name", "STRING"),
    Column("country", "STRING"),
    Column("tier", "STRING"),
    Column("created_at", "TIMESTAMP"),
    Column("updated_at", "TIMESTAMP"),
)

ORDERS = (
    Column("order_id", "BIGINT", True),
    Column("user_id", "BIGINT", True),
    Column("status", "STRING"),
    Column("amount", "DECIMAL(12, 2)"),
    Column("currency", "STRING"),
    Column("created_at", "TIMESTAMP"),
    Column("updated_at", "TIMESTAMP"),
)

# Downstream tables of the incremental ETL (lakeops.etl): derived from the tables above.
USER_ACTIVITY_HOURLY = (
    Column("user_id", "BIGINT", True),
    Column("hour", "TIMESTAMP", True),
    Column("events", "BIGINT", True),
    Column("events_by_type", "MAP<STRING, BIGINT>"),
    Column("sessions", "BIGINT", True),
    Column("first_event_time", "TIMESTAMP", True),
    Column("last_event_time", "TIMESTAMP", True),
)

ORDERS_CURRENT = (
    *ORDERS,
    Column("user_email", "STRING"),
    Column("user_name", "STRING"),
    Column("user_country", "STRING"),
    Column("user_tier", "STRING"),
)

QUARANTINE = (
    Column("table_name", "STRING", True),
    Column("batch_id", "STRING", True),
    Column("source_file", "STRING", True),
    Column("raw_line", "STRING"),
    Column("reason", "STRING", True),
    Column("quarantined_at", "TIMESTAMP", True),
)

BUILTIN_SCHEMAS: dict[str, tuple[Column, ...]] = {
    "events": EVENTS,
    "users": USERS,
    "orders": ORDERS,
    "quarantine": QUARANTINE,
    "user_activity_hourly": USER_ACTIVITY_HOURLY,
    "orders_current": ORDERS_CURRENT,
}


def column_names(schema: str) -> tuple[str, ...]:
    return tuple(c.name for c in BUILTIN_SCHEMAS[schema])
