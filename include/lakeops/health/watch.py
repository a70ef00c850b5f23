"""Which configured tables need compacting, polled from metadata alone: the state the
compact_on_health DAG's asset watcher keeps in Airflow's triggerer.

A poll reads each table's current metadata location (one query for every table of a SQL catalog,
lakeops.tables.pointers) and loads only the tables that committed since. Only when the snapshot id has changed
since the last evaluation is the table's health evaluated again (stored in the history): every
figure the checks compare follows from the snapshot, and delete-file growth only falls while no
commit comes. A table is over threshold when one of the three sensors' checks fires at its
configured thresholds and the compaction planner has something to rewrite: compact_tables plans
only after a sensor fired, and starts Spark only when the plan has actions. A table over threshold
is reported at most once per `min_event_interval_s`, and again after that time for as long as it
stays over (a failed compaction, or partitions a run's byte budget deferred, are retried). A table
that cannot be read or evaluated is logged with its error and skipped; the others are still
watched.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

from lakeops.health.thresholds import CHECKS

log = logging.getLogger(__name__)


@dataclass
class WatchedTable:
    """What the watch remembers of one table between polls."""

    location: str | None = None
    """The metadata file the table was last loaded from: the table is loaded again only when it changes."""
    watched: bool = False
    """Whether its compaction trigger is `watch` (or it was named), as of that metadata."""
    snapshot_id: int | None = None
    evaluated: bool = False
    evaluated_snapshot: int | None = None
    over: dict[str, list[str]] = field(default_factory=dict)
    """Partitions over each check's threshold at the last evaluation."""
    last_event_s: float | None = None


def needs_evaluation(state: WatchedTable, snapshot_id: int | None) -> bool:
    return not state.evaluated or snapshot_id != state.evaluated_snapshot


def event_due(state: WatchedTable, now_s: float, min_event_interval_s: float) -> bool:
    return bool(state.over) and (state.last_event_s is None or now_s - state.last_event_s >= min_event_interval_s)


EVENT_PARTITIONS = 20
"""Partitions an event names per check; the run re-plans from metadata and needs none of them."""


def event_payload(table: str, snapshot_id: int | None, over: dict[str, list[str]],
                  limit: int = EVENT_PARTITIONS) -> dict[str, Any]:
    """An asset event's payload: the table, its snapshot, and per check how many partitions are over
    and the first `limit` of them (a table with thousands over would otherwise fill the event)."""
    return {"table": table, "snapshot_id": snapshot_id, "over": {check: len(parts) for check, parts in over.items()},
            "checks": {check: parts[:limit] for check, parts in over.items()}}


class HealthWatch:
    """Polls `tables` (None: every maintained table whose compaction trigger is `watch`, the configured and
    the discovered ones, listed again at every poll, so a change to lakeops.yaml, a new table or a changed
    table property applies without restarting the triggerer) and returns the events due."""

    def __init__(self, tables: list[str] | None = None, *, min_event_interval_s: float = 300.0,
                 config_path: str | None = None, record: bool = True) -> None:
        if min_event_interval_s < 0:
            raise ValueError(f"min_event_interval_s={min_event_interval_s!r} is negative; give 0 or more seconds")
        self.tables = list(tables) if tables else None
        self.min_event_interval_s = float(min_event_interval_s)
        self.config_path = config_path
        self.record = record
        self.states: dict[str, WatchedTable] = {}
        self.polls = 0
        self.loads = 0
        """Tables loaded from their metadata: follows the tables that committed, not the number of tables."""
        self.evaluations = 0
        self.failed: dict[str, str] = {}
        """Tables the last poll could not read or evaluate, with the error."""

    def poll(self, now_s: float | None = None) -> list[dict[str, Any]]:
        """One pass over the tables: an event for each table whose report is due."""
        from pyiceberg.exceptions import NoSuchTableError

        from lakeops.catalog import load_catalog
        from lakeops.config import load_config
        from lakeops.tables.effective import effective
        from lakeops.tables.pointers import metadata_locations

        now_s = time.time() if now_s is None else now_s
        config = load_config(self.config_path)
        catalog = load_catalog(config.catalog)
        if self.tables:
            tables = [config.identifier(t) for t in self.tables]
            for table in tables:
                config.table(table)  # an unknown name fails here, with the configured ones listed
        else:
            tables = [str(t) for t in config.maintained(catalog)]
        self.polls += 1
        events = []
        self.failed = {}
        locations = metadata_locations(catalog, tables)
        for table in tables:
            state = self.states.setdefault(table, WatchedTable())
            location = locations.get(table)
            if location is None:
                continue  # not created yet: nothing to watch
            try:
                if location != state.location:
                    loaded = catalog.load_table(table)
                    self.loads += 1
                    state.location, state.snapshot_id = location, loaded.metadata.current_snapshot_id
                    # compacted on a schedule by compact_tables unless its trigger is `watch` (or it was named)
                    state.watched = bool(self.tables) or effective(config.table(table), loaded).compaction.trigger == "watch"
                    if state.watched and needs_evaluation(state, state.snapshot_id):
                        state.over = self._evaluate(config, table, loaded)
                        self.evaluations += 1
                        state.evaluated, state.evaluated_snapshot = True, state.snapshot_id
            except NoSuchTableError:
                continue
            except Exception as e:  # noqa: BLE001 - one unreadable table must not blind the watch to the others
                state.location = None  # read it again at the next poll
                self.failed[table] = f"{type(e).__name__}: {e}"
                log.error("health watch: table %s cannot be evaluated, the others still are: %s", table, self.failed[table])
                continue
            if not state.watched:
                continue
            snapshot_id = state.snapshot_id
            if event_due(state, now_s, self.min_event_interval_s):
                events.append(event_payload(table, snapshot_id, state.over))
                log.info("health watch: %s over threshold at snapshot %s (%s)", table, snapshot_id,
                         ", ".join(f"{check}: {len(parts)} partitions" for check, parts in state.over.items()))
                state.last_event_s = now_s
        return events

    def _evaluate(self, config: Any, table: str, loaded: Any) -> dict[str, list[str]]:
        """The partitions over each check's threshold, or nothing when the planner (pure, the same
        plan compact_on_health's plan task makes) would rewrite nothing: an event then would start a
        run that ends without a Spark job, again every interval for as long as the check stays over."""
        from lakeops.compaction.plan import plan_configured
        from lakeops.health.check import evaluate_checks
        from lakeops.tables.effective import effective

        health, found = evaluate_checks(config, table, dict.fromkeys(CHECKS), record=self.record, loaded=loaded)
        over = {check: [p["partition"] for p in partitions] for check, partitions in found.items() if partitions}
        if not over:
            return {}
        if not plan_configured(health, effective(config.table(table), loaded)).actions:
            log.info("health watch: %s over threshold (%s) but the plan has nothing to rewrite: no event", table,
                     ", ".join(over))
            return {}
        return over
