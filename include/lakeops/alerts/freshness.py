"""Freshness SLA per table: the age of its last commit that changed rows against its freshness_sla_minutes.
Metadata only (the snapshots' summaries); no data file is opened."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from lakeops.config import LakeopsConfig

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table


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


def last_commit_time(table: Table) -> datetime | None:
    """When the table's rows last changed (compactions and empty commits do not count); None if never."""
    from lakeops.tables.commits import last_data_commit_ms

    ms = last_data_commit_ms(table)
    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC)


def table_freshness(catalog: Catalog, config: LakeopsConfig, name: str, now: datetime) -> FreshnessStatus:
    """One table's freshness against its effective SLA; a table not created yet has no commit (in breach)."""
    from pyiceberg.exceptions import NoSuchTableError

    from lakeops.tables.effective import effective

    spec = config.table(name)
    try:
        loaded = catalog.load_table(spec.name)
    except NoSuchTableError:
        return evaluate_freshness(spec.name, None, spec.freshness_sla_minutes, now)
    spec = effective(spec, loaded)
    return evaluate_freshness(spec.name, last_commit_time(loaded), spec.freshness_sla_minutes, now)


def check_freshness(catalog: Catalog, config: LakeopsConfig, now: datetime,
                    tables: list[str] | None = None) -> list[FreshnessStatus]:
    """Every maintained table's freshness (configured and discovered), or those named."""
    names = tables if tables is not None else [str(t) for t in config.maintained(catalog)]
    return [table_freshness(catalog, config, name, now) for name in names]
