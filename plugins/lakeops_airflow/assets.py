"""The Airflow asset of a table: lakeops' ingest tasks of the table emit it when they run, and the ETL models
that read the table are scheduled on it."""

from __future__ import annotations

import functools

from airflow.sdk import Asset

ASSET_PREFIX = "lakeops.table."


@functools.cache
def table_asset(identifier: str) -> Asset:
    """The asset of table `identifier` (namespace.table)."""
    return Asset(name=ASSET_PREFIX + identifier)
