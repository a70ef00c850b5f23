"""Which tables committed since the last look, from metadata alone: the state kept in Airflow's triggerer by the
asset watcher of a model's source that lakeops does not ingest (a table Flink, Kafka Connect or Spark SQL writes),
whose commits would otherwise emit no asset event and start no run of the model.

A poll reads each table's current metadata location (one query for every table of a SQL catalog,
lakeops.tables.pointers) and loads only the tables whose location moved. A new current snapshot is a commit; a
metadata change without one (a property, the schema) is not. The first poll only learns where each table stands:
commits made while no watch ran are picked up by the model's daily run, and its watermarks make any run read all
that changed since the last one. A table created after the watch started reports its first commit."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)


@dataclass
class SeenTable:
    """Where a table stood at the last poll."""

    location: str | None = None
    """Its metadata file (None: the table did not exist)."""
    snapshot_id: int | None = None


class CommitWatch:
    """Polls `tables` (configured or discovered names) and returns an event for each that committed since."""

    def __init__(self, tables: list[str], config_path: str | None = None) -> None:
        if not tables:
            raise ValueError("a commit watch needs at least one table, e.g. ['lakeops.orders']")
        self.tables = list(tables)
        self.config_path = config_path
        self.seen: dict[str, SeenTable] = {}
        self.loads = 0
        """Tables loaded from their metadata: follows the commits, not the number of polls."""

    def poll(self) -> list[dict[str, Any]]:
        """One pass: {table, snapshot_id, previous_snapshot_id} for each table with a new current snapshot."""
        from lakeops.catalog import load_catalog
        from lakeops.config import load_config
        from lakeops.tables.pointers import metadata_locations

        config = load_config(self.config_path)
        catalog = load_catalog(config.catalog)
        tables = [config.identifier(t) for t in self.tables]
        locations = metadata_locations(catalog, tables)
        events = []
        for table in tables:
            location, seen = locations.get(table), self.seen.get(table)
            if seen is not None and location == seen.location:
                continue
            snapshot_id = None
            if location is not None:
                try:
                    snapshot_id = catalog.load_table(table).metadata.current_snapshot_id
                except Exception as e:  # noqa: BLE001 - one unreadable table must not blind the watch to the others
                    log.error("commit watch: table %s cannot be read, the others are still watched: %s: %s",
                              table, type(e).__name__, e)
                    continue
                self.loads += 1
            if seen is not None and snapshot_id is not None and snapshot_id != seen.snapshot_id:
                events.append({"table": table, "snapshot_id": snapshot_id, "previous_snapshot_id": seen.snapshot_id})
                log.info("commit watch: %s committed snapshot %s (was %s)", table, snapshot_id, seen.snapshot_id)
            self.seen[table] = SeenTable(location, snapshot_id)
        return events
