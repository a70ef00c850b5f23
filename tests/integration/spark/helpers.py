"""Helpers shared by the Spark integration tests."""

from __future__ import annotations


def newest_snapshot(spark, table: str) -> int:
    """The id of the table's most recently committed snapshot, from its snapshots metadata table."""
    return spark.sql(f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at DESC LIMIT 1").collect()[0][0]
