"""Which zonemap files roll into which hour and day, and which may go once consolidated: pure
planning over literal values (no I/O), tested against literals.

Scopes follow commit time: the hourly zonemap of hour H holds the live files added by snapshots
committed in [H, H+1h); the daily master of day D holds every live file added by a snapshot
committed before the end of D (a snapshot since expired counts as older than any). A master never
covers past the snapshot it was reconciled against, so a file it lacks is still in an hourly or
micro zonemap, or is read in full.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from lakeops.exceptions import ConfigError

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS
HOURLY, DAILY = "hourly", "daily"


@dataclass(frozen=True)
class Scope:
    level: str
    period: str
    """The hour (2026-11-21T10) or day (2026-11-21) the level's file is named by."""
    start_ms: int | None
    """None: from the table's first commit (the daily master)."""
    end_ms: int

    def holds(self, committed_ms: int | None) -> bool:
        """Whether a file added at committed_ms (None: by an expired, older snapshot) is in scope."""
        if committed_ms is None:
            return self.start_ms is None
        return (self.start_ms is None or committed_ms >= self.start_ms) and committed_ms < self.end_ms


@dataclass(frozen=True)
class MicroFile:
    path: str
    snapshot_id: int
    committed_ms: int | None


@dataclass(frozen=True)
class Version:
    """One published hourly or daily zonemap file, as the snapshot map records it."""

    path: str
    level: str
    period: str
    snapshot_id: int
    """The table snapshot whose live files it was reconciled against."""
    sequence_number: int
    start_ms: int | None
    end_ms: int
    entries: int
    published_ms: int

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def hour_scope(hour: datetime) -> Scope:
    if hour.tzinfo is None or hour.minute or hour.second or hour.microsecond:
        raise ConfigError(f"hour {hour.isoformat()!r} must be a time-zone-aware whole hour, e.g. 2026-11-21T10:00:00+00:00")
    hour = hour.astimezone(UTC)
    return Scope(HOURLY, hour.strftime("%Y-%m-%dT%H"), _ms(hour), _ms(hour) + HOUR_MS)


def day_scope(day: date, snapshot_ms: int, previous_end_ms: int | None = None) -> Scope:
    """The master through the end of day, never narrower than the previous master (a backfill of an
    older day does not shrink it) and never past the snapshot it is reconciled against."""
    end = _ms(datetime(day.year, day.month, day.day, tzinfo=UTC)) + DAY_MS
    end = max(end, previous_end_ms or 0)
    return Scope(DAILY, day.isoformat(), None, min(end, snapshot_ms + 1))


def hours_of_day(day: date) -> list[datetime]:
    start = datetime(day.year, day.month, day.day, tzinfo=UTC)
    return [start + timedelta(hours=h) for h in range(24)]


def newest(versions: list[Version]) -> Version | None:
    return max(versions, key=lambda v: (v.sequence_number, v.published_ms), default=None)


def current_versions(hourly: list[Version], daily: list[Version]) -> tuple[Version | None, list[Version]]:
    """(current master, current hourly versions it does not cover): what a reader loads."""
    master = newest(daily)
    covered = master.end_ms if master else None
    by_hour: dict[str, list[Version]] = {}
    for version in hourly:
        by_hour.setdefault(version.period, []).append(version)
    current = [newest(vs) for vs in by_hour.values()]
    return master, sorted((v for v in current if v is not None and (covered is None or v.end_ms > covered)),
                          key=lambda v: v.period)


def plan_sources(scope: Scope, micro: list[MicroFile], hourly: list[Version], daily: list[Version]) -> list[str]:
    """Zonemap files whose entries a consolidation of scope starts from, oldest level first (a later
    file's entry for the same data file wins; entries of one immutable file agree anyway)."""
    sources: list[str] = []
    if scope.level == HOURLY:
        previous = newest([v for v in hourly if v.period == scope.period])
        if previous:
            sources.append(previous.path)
    else:
        master, current_hourly = current_versions(hourly, daily)
        if master:
            sources.append(master.path)
        sources += [v.path for v in current_hourly if v.start_ms is not None and v.start_ms < scope.end_ms]
    sources += [m.path for m in sorted(micro, key=lambda m: (m.committed_ms or 0, m.snapshot_id)) if scope.holds(m.committed_ms)]
    return sources


def removable_micro(micro: list[MicroFile], master: Version, master_committed_ms: int) -> list[str]:
    """Micro files the master covers: their snapshot committed in its scope, at or before the
    snapshot it was reconciled against. Consolidated micro files stay until then."""
    return [m.path for m in micro
            if m.committed_ms is None or (m.committed_ms < master.end_ms and m.committed_ms <= master_committed_ms)]


def supersessions(versions: list[Version]) -> dict[str, int | None]:
    """For each version, the sequence number from which a newer one replaces it (None: current).
    An hourly version is replaced by a newer version of its hour or by a master covering its hour."""
    out: dict[str, int | None] = {}
    masters = sorted((v for v in versions if v.level == DAILY), key=lambda v: (v.sequence_number, v.published_ms))
    for i, v in enumerate(masters):
        out[v.path] = masters[i + 1].sequence_number if i + 1 < len(masters) else None
    hourly = sorted((v for v in versions if v.level == HOURLY), key=lambda v: (v.sequence_number, v.published_ms))
    for i, v in enumerate(hourly):
        later = [h.sequence_number for h in hourly[i + 1:] if h.period == v.period]
        later += [m.sequence_number for m in masters
                  if m.end_ms >= v.end_ms and (m.sequence_number, m.published_ms) >= (v.sequence_number, v.published_ms)]
        out[v.path] = min(later, default=None)
    return out


def files_for_snapshots(versions: list[Version], unmapped: list[str], micro: list[MicroFile],
                        snapshot_sequences: dict[int, int], current_snapshot: int | None) -> dict[str, set[int]]:
    """Zonemap file -> the table snapshots it serves (see lakeops.zonemap.snapmap)."""
    replaced = supersessions(versions)
    out: dict[str, set[int]] = {}
    for v in versions:
        until = replaced[v.path]
        out[v.path] = {s for s, seq in snapshot_sequences.items() if seq >= v.sequence_number and (until is None or seq < until)}
        if until is None and current_snapshot is not None:
            out[v.path].add(current_snapshot)
    for m in micro:
        own = snapshot_sequences.get(m.snapshot_id)
        out[m.path] = {s for s, seq in snapshot_sequences.items() if own is not None and seq >= own}
        if current_snapshot is not None:
            out[m.path].add(current_snapshot)
    for path in unmapped:
        out.setdefault(path, set())
    return out


def parse_hour(value: str) -> datetime:
    """An hour argument: ISO-8601 with a zone, on the hour (e.g. 2026-11-21T10:00:00+00:00)."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as e:
        raise ConfigError(f"hour {value!r} is not an ISO-8601 time; pass e.g. 2026-11-21T10:00:00+00:00 "
                          "(a manual run with no data interval needs the param hour)") from e
    hour_scope(moment)
    return moment


def parse_day(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError as e:
        raise ConfigError(f"day {value!r} is not a date; pass e.g. 2026-11-21 "
                          "(a manual run with no data interval needs the param day)") from e
