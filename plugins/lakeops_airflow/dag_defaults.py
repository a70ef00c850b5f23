"""default_args every lakeops DAG starts from: a real owner, retries with exponential backoff, and a fixed priority
in the shared Spark pool (ingest before maintenance, whatever the number of mapped tasks)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

OWNER = "data-platform"
INGEST_PRIORITY = 10
"""priority_weight of ingest tasks: a queued ingest takes the next free slot of the Spark pool before any queued
maintenance task (priority 1), so a compaction of many tables never holds a table's freshness back."""
MAINTENANCE_PRIORITY = 1


def default_args(**overrides: Any) -> dict[str, Any]:
    """Owner, 2 retries from 30 s doubling up to 5 min, maintenance priority (absolute: a mapped task's weight does
    not grow with the tasks after it); keyword arguments override or add keys."""
    return {
        "owner": OWNER,
        "priority_weight": MAINTENANCE_PRIORITY,
        "weight_rule": "absolute",
        "retries": 2,
        "retry_delay": timedelta(seconds=30),
        "retry_exponential_backoff": True,
        "max_retry_delay": timedelta(minutes=5),
        **overrides,
    }
