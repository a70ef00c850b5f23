"""The Airflow asset of a table: lakeops' ingest tasks of the table, or the ETL task of the model that writes it,
emit it when they run, and the ETL models that read the table are scheduled on it. A table no lakeops task writes
gets an asset watcher instead, which records an event when another tool commits to it."""

from __future__ import annotations

import functools

from airflow.sdk import Asset, AssetWatcher

from lakeops_airflow.triggers import TableCommitWatchTrigger

ASSET_PREFIX = "lakeops.table."


@functools.cache
def table_asset(identifier: str, watch_interval_s: float | None = None) -> Asset:
    """The asset of table `identifier` (namespace.table); with watch_interval_s, watched in the triggerer: an event
    each time the table's current snapshot changes, polled every watch_interval_s seconds."""
    if watch_interval_s is None:
        return Asset(name=ASSET_PREFIX + identifier)
    trigger = TableCommitWatchTrigger(table=identifier, poke_interval=watch_interval_s)
    return Asset(name=ASSET_PREFIX + identifier,
                 watchers=[AssetWatcher(name=f"lakeops_commits.{identifier}", trigger=trigger)])
