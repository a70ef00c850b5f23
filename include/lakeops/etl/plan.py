"""Which work a model's ETL run does, decided from plain values: pure, no Spark, no catalog.

* incremental: read the source snapshots after the watermark up to the source's current snapshot;
* full: recompute the whole downstream table (first run, an expired watermark whose changes cannot be
  dated, a rewrite of an append-only source, a change that touched most of a changelog source's files, or
  asked for);
* backfill: recompute the downstream partitions of given dates by partition-scoped overwrite;
* range: an expired watermark answered by a backfill of the dates the sources changed on since it, which
  moves the watermarks;
* noop: every source is at its watermark.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from lakeops.config.models import ModelConfig
from lakeops.etl.key_ranges import sql_literal
from lakeops.exceptions import ConfigError

# Snapshot operations an append-only incremental read cannot follow (compaction's `replace` it can).
REWRITES = frozenset({"overwrite", "delete"})
MAX_BACKFILL_DAYS = 366


@dataclass(frozen=True)
class SourceState:
    """What the catalog says about one source table."""

    name: str
    current_snapshot_id: int | None
    live_snapshot_ids: frozenset[int] = frozenset()
    operations_after: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """snapshot id -> operations of the snapshots after it, up to the current one (ancestors only), that changed
    rows: a compaction's replace and commits that added and removed nothing are left out."""
    current_sequence_number: int | None = None
    current_total_records: int | None = None
    changed_dates: tuple[date, ...] | str | None = None
    """only read when a watermark of the model has been expired: the dates the source's rows changed on since
    its watermark (lakeops.etl.changed_dates), or why they cannot be known"""
    appended_bytes: int | None = None
    """bytes of the data files the appends after the watermark added (their snapshot summaries); None: unknown"""
    current_total_bytes: int | None = None
    """the current snapshot's live data and delete file bytes (its summary's total-files-size); None: unknown"""


@dataclass(frozen=True)
class SourceRange:
    source: str
    start_snapshot_id: int | None
    """exclusive; None: from the first snapshot"""
    end_snapshot_id: int | None
    """inclusive; the snapshot read; None: the source has no snapshot yet"""
    end_sequence_number: int | None = None
    end_total_records: int | None = None
    """the end snapshot's sequence number and row count, recorded with the watermark: what dates the changes
    once the watermark snapshot is expired (lakeops.etl.changed_dates)"""


@dataclass(frozen=True)
class EtlPlan:
    model: str
    mode: str
    """incremental | full | backfill | range | noop"""
    ranges: tuple[SourceRange, ...]
    dates: tuple[date, ...] = ()
    reason: str = ""

    @property
    def new_watermarks(self) -> dict[str, int]:
        """The watermarks the commit carries. A backfill carries none: current_watermarks skips a
        snapshot without any, so a backfill can never move the incremental watermark backwards."""
        if self.mode not in ("incremental", "full", "range"):
            return {}
        return {r.source: r.end_snapshot_id for r in self.ranges if r.end_snapshot_id is not None}

    @property
    def new_watermark_facts(self) -> dict[str, tuple[int, int]]:
        """source -> (sequence number, row count) of each new watermark that has both."""
        return {r.source: (r.end_sequence_number, r.end_total_records) for r in self.ranges
                if r.source in self.new_watermarks and r.end_sequence_number and r.end_total_records is not None}

    def as_dict(self) -> dict:
        return {"model": self.model, "mode": self.mode, "reason": self.reason,
                "dates": [d.isoformat() for d in self.dates],
                "ranges": [{"source": r.source, "start": r.start_snapshot_id, "end": r.end_snapshot_id} for r in self.ranges]}


def dates_between(first: date, last: date) -> tuple[date, ...]:
    """Every date from first to last, inclusive."""
    if last < first:
        raise ConfigError(f"backfill range {first.isoformat()}..{last.isoformat()} ends before it starts; swap the dates")
    days = (last - first).days + 1
    if days > MAX_BACKFILL_DAYS:
        raise ConfigError(f"backfill range {first.isoformat()}..{last.isoformat()} spans {days} days; "
                          f"split it into ranges of at most {MAX_BACKFILL_DAYS}")
    return tuple(first + timedelta(days=i) for i in range(days))


def day_bounds(dates: tuple[date, ...]) -> list[tuple[datetime, datetime]]:
    """[start, end) of each run of consecutive dates, as naive UTC datetimes: the partition-aligned overwrite filters
    (Iceberg's day of a timestamp is its UTC day)."""
    bounds: list[tuple[datetime, datetime]] = []
    for d in sorted(set(dates)):
        start = datetime(d.year, d.month, d.day)
        if bounds and bounds[-1][1] == start:
            bounds[-1] = (bounds[-1][0], start + timedelta(days=1))
        else:
            bounds.append((start, start + timedelta(days=1)))
    return bounds


DAY_ALIGNED_TRANSFORMS = ("day", "hour", "identity")
"""Partition transforms of the partition column under which each partition lies within one day."""


def days_are_partitions(specs: list[list[tuple[str, str]]], column: str) -> bool:
    """Whether every partition spec of the table (each a list of (source column, transform)) partitions by the day,
    hour or value of `column`, so that the rows of whole days are whole files and a date's overwrite drops files by
    metadata. An unpartitioned table, a month or bucket partitioning, or an older spec without it: False (a file may
    hold rows of other days, which Iceberg's overwrite by filter refuses)."""
    return bool(specs) and all(any(source.lower() == column.lower() and transform in DAY_ALIGNED_TRANSFORMS
                                   for source, transform in spec) for spec in specs)


def hour_spans(hours: list[datetime]) -> list[tuple[datetime, datetime]]:
    """[start, end) of each run of consecutive whole hours."""
    spans: list[tuple[datetime, datetime]] = []
    for hour in sorted(set(hours)):
        if spans and spans[-1][1] == hour:
            spans[-1] = (spans[-1][0], hour + timedelta(hours=1))
        else:
            spans.append((hour, hour + timedelta(hours=1)))
    return spans


def period_spans(values: list[datetime] | list[date], grain: str) -> list[tuple[datetime, datetime]]:
    """[start, end) of each run of consecutive periods (hours or days) holding the values (naive UTC datetimes, or
    dates of a DATE column)."""
    if grain == "hour" and all(isinstance(v, datetime) for v in values):
        return hour_spans([v.replace(minute=0, second=0, microsecond=0) for v in values if isinstance(v, datetime)])
    return day_bounds(tuple(v.date() if isinstance(v, datetime) else v for v in values))


def span_condition(column: str, spans: list[tuple[datetime, datetime]]) -> str:
    """SQL: `column` lies inside one of the [start, end) spans. Bounds are written as epoch
    microseconds (lakeops.etl.key_ranges.sql_literal; lakeops.etl.utc: naive datetimes are UTC), so the condition means
    the same instants whatever the session's and the process's time zones; Spark folds them into
    literals that Iceberg prunes files and partitions with."""
    if not spans:
        return "FALSE"
    return " OR ".join(f"({column} >= {sql_literal(start)} AND {column} < {sql_literal(end)})" for start, end in spans)


def plan_etl(model: ModelConfig, watermarks: dict[str, int], sources: dict[str, SourceState],
             full: bool = False, backfill_dates: tuple[date, ...] = ()) -> EtlPlan:
    """The plan of one run of a model. watermarks and sources are keyed by source table, as the model names them."""
    names = [model.source_table(name) for name in model.sources]
    missing = [name for name in names if name not in sources]
    if missing:
        raise ConfigError(f"no state given for source(s) {missing} of model {model.name}")
    current = tuple(SourceRange(n, None, sources[n].current_snapshot_id, sources[n].current_sequence_number,
                                sources[n].current_total_records) for n in names)
    if backfill_dates:
        return EtlPlan(model.name, "backfill", current, tuple(sorted(set(backfill_dates))),
                       f"backfill of {len(set(backfill_dates))} date(s)")
    if full:
        return EtlPlan(model.name, "full", current, reason="full recompute requested")
    ranges = []
    for alias, name in zip(model.sources, names, strict=True):
        state, mark = sources[name], watermarks.get(name)
        if mark is None:
            return EtlPlan(model.name, "full", current, reason=f"no watermark for source {name} yet: first run")
        if state.current_snapshot_id is None or mark not in state.live_snapshot_ids:
            return _expired(model.name, f"watermark snapshot {mark} of source {name} has been expired (or the "
                                        f"table was replaced)", current, [sources[n] for n in names])
        after = state.operations_after.get(mark, ())
        if model.source(alias).kind == "append" and REWRITES & set(after):
            return EtlPlan(model.name, "full", current, reason=(
                f"source {name} had {sorted(REWRITES & set(after))} commits after watermark {mark}; "
                f"an append-only incremental read cannot follow them, so the whole table is recomputed"))
        appended = appends_make_full_cheaper(name, state.appended_bytes, state.current_total_bytes,
                                             model.full_recompute_share) if model.source(alias).kind == "append" else None
        if appended is not None:
            return EtlPlan(model.name, "full", current, reason=appended)
        ranges.append(SourceRange(name, mark, state.current_snapshot_id, state.current_sequence_number,
                                  state.current_total_records))
    if all(r.start_snapshot_id == r.end_snapshot_id for r in ranges):
        return EtlPlan(model.name, "noop", tuple(ranges), reason="every source is at its watermark")
    if not any(sources[r.source].operations_after.get(r.start_snapshot_id, ("unknown",)) for r in ranges
               if r.start_snapshot_id is not None and r.start_snapshot_id != r.end_snapshot_id):
        return EtlPlan(model.name, "noop", tuple(ranges), reason=(
            "no source changed a row since its watermark (only compactions or commits that matched no row)"))
    return EtlPlan(model.name, "incremental", tuple(ranges), reason="changes since the watermarks")


def _expired(model: str, what: str, current: tuple[SourceRange, ...], states: list[SourceState]) -> EtlPlan:
    """An expired watermark: a recompute of the dates the sources changed on since their watermarks when every
    source's are known, else of the whole table; the reason names the snapshot and the dates or why not."""
    known: set[date] = set()
    for state in states:
        if not isinstance(state.changed_dates, tuple):
            why = state.changed_dates or "the dates the sources changed on were not read"
            return EtlPlan(model, "full", current, reason=f"{what}; the changes since it cannot be read as a diff "
                                                          f"and cannot be dated ({why}), so the whole table is recomputed")
        known.update(state.changed_dates)
    dates = tuple(sorted(known))
    if not dates:
        return EtlPlan(model, "noop", current, reason=f"{what}; no source file was committed since it")
    return EtlPlan(model, "range", current, dates, reason=(
        f"{what}; the changes since it cannot be read as a diff, and the files committed since hold rows of "
        f"{len(dates)} date(s) from {dates[0].isoformat()} to {dates[-1].isoformat()}, which are recomputed"))


def full_is_cheaper(source: str, changed_bytes: int, live_bytes: int | None, share: float) -> str | None:
    """Why a full recompute reads less than an incremental run when a changelog source's changed files (read at
    both snapshots, changed_bytes) come to `share` of its live bytes or more (the model's full_recompute_share);
    None when they do not, when share is 0, or when the source's size is unknown (no total-files-size in its
    snapshot summary)."""
    if not live_bytes or not _at_share(changed_bytes, live_bytes, share):
        return None
    return (f"the changes of source {source} touched files holding {changed_bytes / live_bytes:.0%} of its "
            f"{live_bytes:,} live bytes (read at both snapshots); an incremental run would read more than a full "
            f"one, so the whole table is recomputed")


def appends_make_full_cheaper(source: str, appended_bytes: int | None, live_bytes: int | None, share: float) -> str | None:
    """Why a full recompute reads less than an incremental run when the files appended to an append source since the
    watermark come to `share` of its live bytes or more: the run reads them for the affected values, then the source
    again where they touched it, and gathers the affected values in the driver (a bulk load of history would hold
    most of the model's keys there). None below the share, when share is 0, or when either size is unknown."""
    if appended_bytes is None or not live_bytes or not _at_share(appended_bytes, live_bytes, share):
        return None
    return (f"source {source} had {appended_bytes:,} bytes of files appended since the watermark, "
            f"{appended_bytes / live_bytes:.0%} of its {live_bytes:,} live bytes; an incremental run would read them "
            f"and the periods they touch, more than a full one reads, so the whole table is recomputed")


def _at_share(changed_bytes: int, live_bytes: int, share: float) -> bool:
    """Whether changed_bytes come to `share` of live_bytes or more (never, with share 0)."""
    return bool(share) and changed_bytes >= share * live_bytes


def _run_kind(run_type: str | None) -> str:
    """'backfill' for every spelling a template renders: the value, or the task SDK enum's
    `DagRunType.BACKFILL` (its str() on Python 3.11 is the member, not the value)."""
    kind = (run_type or "").rsplit(".", 1)[-1].lower()
    return "backfill" if kind in ("backfill", "backfill_job") else kind


def choose_backfill_dates(run_type: str | None, interval_start: str | None, from_date: str | None,
                          to_date: str | None) -> tuple[date, ...]:
    """The dates a DAG run recomputes: the params' range when given, the date of a backfill run's
    data interval, none for a scheduled or manual incremental run."""
    if from_date or to_date:
        if not (from_date and to_date):
            raise ConfigError(f"from_date={from_date!r}, to_date={to_date!r}: give both (YYYY-MM-DD) or neither")
        try:
            return dates_between(date.fromisoformat(from_date), date.fromisoformat(to_date))
        except ValueError as e:
            raise ConfigError(f"from_date={from_date!r}, to_date={to_date!r}: dates must be YYYY-MM-DD") from e
    if _run_kind(run_type) == "backfill":
        if not interval_start:
            raise ConfigError("a backfill run has no data interval start; pass the params from_date and to_date")
        try:
            return (datetime.fromisoformat(interval_start).date(),)
        except ValueError as e:
            raise ConfigError(f"data interval start {interval_start!r} is not ISO-8601") from e
    return ()
