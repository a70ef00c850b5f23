"""Freshness SLA per table: the age of its last commit against TableConfig.freshness_sla_minutes.
Metadata only (the current snapshot's timestamp); no data file is opened."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from lakeops.config import LakeopsConfig

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog


@dataclass(frozen=True)
class FreshnessStatus:
    table: str
    last_commit: datetime | None
    sla_minutes: int
    age_seconds: float | None
    breached: bool

    @property
    def late_seconds(self) -> float:
        if self.age_seconds is None:
            return 0.0
        return max(0.0, self.age_seconds - self.sla_minutes * 60)


def evaluate_freshness(table: str, last_commit: datetime | None, sla_minutes: int, now: datetime) -> FreshnessStatus:
    """A table with no commit at all is in breach: nothing fresh has ever landed."""
    if last_commit is None:
        return FreshnessStatus(table, None, sla_minutes, None, True)
    age = (now - last_commit).total_seconds()
    return FreshnessStatus(table, last_commit, sla_minutes, age, age > sla_minutes * 60)


def last_commit_time(catalog: Catalog, identifier: str) -> datetime | None:
    """When the table's current snapshot was committed; None if the table or a snapshot is missing."""
    from pyiceberg.exceptions import NoSuchTableError

    try:
        snapshot = catalog.load_table(identifier).current_snapshot()
    except NoSuchTableError:
        return None
    return None if snapshot is None else datetime.fromtimestamp(snapshot.timestamp_ms / 1000, tz=UTC)


def check_freshness(catalog: Catalog, config: LakeopsConfig, now: datetime,
                    tables: list[str] | None = None) -> list[FreshnessStatus]:
    names = tables if tables is not None else list(config.tables)
    return [evaluate_freshness(name, last_commit_time(catalog, config.identifier(name)),
                               config.table(name).freshness_sla_minutes, now) for name in names]
