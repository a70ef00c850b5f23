"""Triggers that run in Airflow's triggerer: they take plain values only, so they serialize to
their class path and kwargs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

from airflow.triggers.base import BaseEventTrigger, BaseTrigger, TriggerEvent


class TableHealthTrigger(BaseTrigger):
    """Re-evaluates one health check of one table every poke_interval seconds (metadata only, in a
    thread so the triggerer's event loop never blocks) and yields one event: success with the
    partitions over threshold, or error with the message. Then it returns."""

    def __init__(self, table: str, check: str, limits: dict[str, Any] | None = None,
                 poke_interval: float = 60.0, record: bool = True, config_path: str | None = None) -> None:
        super().__init__()
        self.table = table
        self.check = check
        self.limits = dict(limits or {})
        self.poke_interval = float(poke_interval)
        self.record = record
        self.config_path = config_path

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return ("lakeops_airflow.triggers.TableHealthTrigger", {
            "table": self.table, "check": self.check, "limits": self.limits,
            "poke_interval": self.poke_interval, "record": self.record, "config_path": self.config_path,
        })

    async def run(self) -> AsyncIterator[TriggerEvent]:
        from lakeops.health.check import run_check

        while True:
            try:
                found = await asyncio.to_thread(run_check, self.table, self.check, self.limits,
                                                record=self.record, config_path=self.config_path)
            except Exception as e:  # the worker turns this event into a task failure with the message
                yield TriggerEvent({"status": "error", "table": self.table, "check": self.check,
                                    "message": f"{type(e).__name__}: {e}"})
                return
            if found:
                yield TriggerEvent({"status": "success", "table": self.table, "check": self.check, "partitions": found})
                return
            self.log.info("%s on %s: no partition over %s; next check in %.0f s", self.check, self.table,
                          self.limits, self.poke_interval)
            await asyncio.sleep(self.poke_interval)


def positive_interval(poke_interval: float) -> float:
    """A watch's poll interval in seconds, refused unless positive."""
    if poke_interval <= 0:
        raise ValueError(f"poke_interval={poke_interval!r} must be a positive number of seconds, e.g. 60")
    return float(poke_interval)


async def polled_events(poll: Callable[[], list[dict[str, Any]]], interval: float, log: Any,
                        what: str) -> AsyncIterator[TriggerEvent]:
    """An asset watcher's events: poll() in a thread every `interval` seconds, an event per dict it returns, for as
    long as the triggerer runs the watcher. A poll that fails is logged (on the trigger's `log`), naming `what`, and
    tried again."""
    while True:
        try:
            events = await asyncio.to_thread(poll)
        except Exception as e:  # noqa: BLE001 - a watcher outlives a bad poll; the log says what to fix
            log.error("%s failed, retrying in %.0f s: %s: %s", what, interval, type(e).__name__, e)
            events = []
        for event in events:
            yield TriggerEvent(event)
        await asyncio.sleep(interval)


class TableHealthWatchTrigger(BaseEventTrigger):
    """An asset watcher's trigger: polls the health of `tables` (None: every configured table) every
    poke_interval seconds from metadata alone, in a thread, and yields an event for each table over
    a threshold whose plan has something to rewrite, at most once per min_event_interval seconds a
    table (lakeops.health.watch). It
    never returns: the triggerer runs it for as long as the DAG that schedules on its asset is
    active. A table it cannot read is logged and skipped; a poll that fails as a whole (an
    unreadable config, an unknown table, a catalog down) is logged and retried at the next interval."""

    def __init__(self, tables: list[str] | None = None, poke_interval: float = 60.0,
                 min_event_interval: float = 300.0, config_path: str | None = None) -> None:
        super().__init__()
        self.tables = list(tables or [])
        self.poke_interval = positive_interval(poke_interval)
        self.min_event_interval = float(min_event_interval)
        self.config_path = config_path

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return ("lakeops_airflow.triggers.TableHealthWatchTrigger", {
            "tables": self.tables, "poke_interval": self.poke_interval,
            "min_event_interval": self.min_event_interval, "config_path": self.config_path,
        })

    async def run(self) -> AsyncIterator[TriggerEvent]:
        from lakeops.health.watch import HealthWatch

        watch = HealthWatch(self.tables or None, min_event_interval_s=self.min_event_interval,
                            config_path=self.config_path)
        async for event in polled_events(watch.poll, self.poke_interval, self.log, "health watch poll"):
            yield event


class TableCommitWatchTrigger(BaseEventTrigger):
    """An asset watcher's trigger for a table lakeops does not ingest: polls its current snapshot every poke_interval
    seconds from metadata alone, in a thread, and yields an event each time it changes (lakeops.etl.source_commits),
    so the models reading the table run when another tool commits to it. It never returns; a poll that fails as a
    whole (an unreadable config, a catalog down) is logged and retried at the next interval."""

    def __init__(self, table: str, poke_interval: float = 60.0, config_path: str | None = None) -> None:
        super().__init__()
        self.table = table
        self.poke_interval = positive_interval(poke_interval)
        self.config_path = config_path

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return ("lakeops_airflow.triggers.TableCommitWatchTrigger", {
            "table": self.table, "poke_interval": self.poke_interval, "config_path": self.config_path,
        })

    async def run(self) -> AsyncIterator[TriggerEvent]:
        from lakeops.etl.source_commits import CommitWatch

        watch = CommitWatch([self.table], config_path=self.config_path)
        async for event in polled_events(watch.poll, self.poke_interval, self.log, f"commit watch of {self.table}"):
            yield event
