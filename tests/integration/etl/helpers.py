"""What the incremental ETL tests share: event batches written through Spark, the tables' DDL,
and the downstream rows read back as sorted tuples."""

from __future__ import annotations

from datetime import datetime

from lakeops.ingest.ddl import table_ddl
from lakeops.spark.etl_model import model_rows

EVENT_SCHEMA = ("event_id string, user_id bigint, session_id string, event_time timestamp, event_type string, "
                "page string, device string, country string, properties map<string,string>, ingested_at timestamp")


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 11, day, hour, minute)


def append_events(spark, config, rows):
    """Append one batch (one snapshot): rows are (id, user, session, time, type)."""
    full = [(i, u, s, t, e, "/", "web", "DE", {}, t) for i, u, s, t, e in rows]
    spark.createDataFrame(full, EVENT_SCHEMA).writeTo(config.qualified("events")).append()


def create_tables(spark, config, *tables):
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {config.catalog.name}.{config.catalog.namespace}")
    for name in tables:
        for statement in table_ddl(config, config.table(name)):
            spark.sql(statement)


def seed_events(spark, config, rows):
    """Create the events table if needed and append rows (id, user, session, time, type) as one snapshot."""
    create_tables(spark, config, "events")
    append_events(spark, config, rows)


def sorted_rows(df, key):
    """The rows as tuples (a map as its sorted items), sorted with NULLs first."""
    rows = [tuple(tuple(sorted(v.items())) if isinstance(v, dict) else v for v in row) for row in df.select(*key).collect()]
    return sorted(rows, key=lambda row: tuple((v is not None, v) for v in row))


ACTIVITY = ["user_id", "hour", "events", "events_by_type", "sessions", "first_event_time", "last_event_time"]


def activity(spark, config):
    return sorted_rows(spark.table(config.qualified("user_activity_hourly")), ACTIVITY)


def from_scratch(spark, config, name):
    """The model applied to the whole of its sources' current state."""
    model = config.model(name)
    return model_rows(spark, model, {s: spark.table(config.qualified(model.source_table(s))) for s in model.sources})


def activity_from_scratch(spark, config):
    return sorted_rows(from_scratch(spark, config, "user_activity_hourly"), ACTIVITY)


BATCH1 = [("e1", 1, "s1", at(21, 10, 5), "page_view"), ("e2", 1, "s1", at(21, 10, 7), "click"),
          ("e3", 2, "s2", at(21, 11, 1), "page_view"), ("e4", 1, "s3", at(22, 9, 0), "search")]
# e5 is late: it belongs to user 1's 10:00 hour of the 21st, already aggregated.
BATCH2 = [("e5", 1, "s9", at(21, 10, 59), "purchase"), ("e6", 3, "s4", at(22, 9, 30), "click")]
