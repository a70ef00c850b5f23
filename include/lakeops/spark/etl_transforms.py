"""The downstream tables' definitions as Spark transformations: the same code serves incremental,
full and backfill runs, so every mode computes a key the same way."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

USER_COLUMNS = ("email", "name", "country", "tier")


def with_hour(events: DataFrame) -> DataFrame:
    from pyspark.sql import functions as F

    return events.withColumn("hour", F.date_trunc("hour", "event_time"))


def user_activity(events: DataFrame) -> DataFrame:
    """events (with `hour`) -> one row per (user_id, hour): counts by type, sessions, first/last time."""
    from pyspark.sql import functions as F

    per_type = events.groupBy("user_id", "hour", "event_type").agg(
        F.count(F.lit(1)).alias("n"),
        F.collect_set("session_id").alias("sessions"),
        F.min("event_time").alias("first_event_time"),
        F.max("event_time").alias("last_event_time"),
    )
    return per_type.groupBy("user_id", "hour").agg(
        F.sum("n").cast("bigint").alias("events"),
        F.map_from_entries(F.array_sort(F.collect_list(F.struct("event_type", "n")))).alias("events_by_type"),
        F.size(F.array_distinct(F.flatten(F.collect_list("sessions")))).cast("bigint").alias("sessions"),
        F.min("first_event_time").alias("first_event_time"),
        F.max("last_event_time").alias("last_event_time"),
    )


def orders_enriched(orders: DataFrame, users: DataFrame) -> DataFrame:
    """Current orders with their user's current row (null user columns when the user is gone)."""
    from pyspark.sql import functions as F

    u = users.select(F.col("user_id").alias("_uid"), *(F.col(c).alias(f"user_{c}") for c in USER_COLUMNS))
    joined = orders.join(u, orders["user_id"] == u["_uid"], "left")
    return joined.select(*orders.columns, *(f"user_{c}" for c in USER_COLUMNS))


ORDER_KEY = "order_id"
USER_KEY = "user_id"
