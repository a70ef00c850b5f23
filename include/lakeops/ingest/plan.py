"""Plan an ingest batch from a data interval: pure, no Spark, no I/O."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from lakeops.config import LakeopsConfig
from lakeops.exceptions import ConfigError
from lakeops.landing import interval_dirs


@dataclass(frozen=True)
class IngestPlan:
    table: str
    """Fully qualified target table, catalog.namespace.name."""
    quarantine_table: str
    batch_id: str
    """Identity of the batch: the same interval always gets the same id, whatever the Airflow run."""
    source_dirs: tuple[str, ...]
    start: datetime
    end: datetime


def batch_id(table: str, start: datetime, end: datetime) -> str:
    fmt = "%Y%m%dT%H%M%SZ"
    return f"{table}@{start.astimezone(timezone.utc):{fmt}}-{end.astimezone(timezone.utc):{fmt}}"


def plan_ingest(config: LakeopsConfig, table: str, start: datetime, end: datetime) -> IngestPlan:
    """The batch for `table` over the data interval [start, end)."""
    spec = config.table(table)
    if start.tzinfo is None or end.tzinfo is None:
        raise ConfigError(f"data interval {start!r}..{end!r} has no time zone; pass ISO-8601 times with a zone, e.g. 2026-11-21T10:00:00+00:00")
    if start >= end:
        raise ConfigError(f"data interval start {start.isoformat()} is not before end {end.isoformat()}; pass start < end")
    return IngestPlan(
        table=config.qualified(spec.name),
        quarantine_table=config.qualified(spec.quarantine_name),
        batch_id=batch_id(spec.name, start, end),
        source_dirs=tuple(interval_dirs(config.landing_root, spec.source or spec.name, start, end)),
        start=start,
        end=end,
    )


def parse_moment(value: str) -> datetime:
    """An interval bound from a job argument (ISO-8601 with a zone)."""
    try:
        return datetime.fromisoformat(value)
    except ValueError as e:
        raise ConfigError(f"{value!r} is not an ISO-8601 time; pass e.g. 2026-11-21T10:00:00+00:00 "
                          "(a manual run with no data interval needs the params start and end)") from e
