"""Command-line values parsed and checked before any catalog read or Spark start: times, hours, days and
the choice of a consolidation level. Pure; each refusal names the value received and the fix."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from lakeops.exceptions import LakeopsError

EXIT_OK = 0
EXIT_FAILED = 1
"""A job or a run failed: its message says why."""
EXIT_USAGE = 2
"""Bad input (an argument, the config, a table's settings): the message names the value and the fix."""


class CliError(LakeopsError):
    """A command-line value is invalid; exit status 2."""


def parse_time(value: str, option: str) -> datetime:
    """An ISO-8601 time with a zone (`Z` or `+00:00`), as `--start`, `--end` and `--older-than` take it."""
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise CliError(f"{option} {value!r} is not an ISO-8601 time; pass e.g. 2026-11-21T10:00:00Z") from None
    if moment.tzinfo is None:
        raise CliError(f"{option} {value!r} has no time zone; add one, e.g. {moment.isoformat()}Z or "
                       f"{moment.isoformat()}+00:00") from None
    return moment


def parse_interval(start: str, end: str) -> tuple[datetime, datetime]:
    """`--start` and `--end` of an ingest run: both zoned, start before end."""
    begin, finish = parse_time(start, "--start"), parse_time(end, "--end")
    if begin >= finish:
        raise CliError(f"--start {start!r} is not before --end {end!r}; pass an interval with start < end")
    return begin, finish


def parse_hour(value: str) -> datetime:
    """`--hour`: a zoned time on the hour, returned in UTC."""
    moment = parse_time(value, "--hour")
    if moment.minute or moment.second or moment.microsecond:
        whole = moment.replace(minute=0, second=0, microsecond=0)
        raise CliError(f"--hour {value!r} is not on the hour; pass the hour it starts, e.g. {whole.isoformat()}")
    return moment.astimezone(UTC)


def parse_day(value: str) -> date:
    """`--day`: a calendar date (UTC), YYYY-MM-DD."""
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise CliError(f"--day {value!r} is not a date; pass YYYY-MM-DD, e.g. 2026-11-21") from None


@dataclass(frozen=True)
class ConsolidationTarget:
    """Which zonemap level a `zonemap consolidate` run builds, and the job's arguments for it."""

    level: str
    """hourly | daily"""
    period: str
    """The hour (ISO-8601, UTC) or the day."""
    job: str
    job_args: tuple[str, ...]


def consolidation_target(hour: str | None, day: str | None) -> ConsolidationTarget:
    """`--hour H` (the hourly zonemap of H) or `--day D` (the daily master through D): exactly one."""
    if hour is not None and day is not None:
        raise CliError(f"--hour {hour!r} and --day {day!r} were both given; pass one: --hour for the hourly zonemap "
                       "of one hour, --day for the daily master through one day")
    if hour is not None:
        moment = parse_hour(hour).isoformat()
        return ConsolidationTarget("hourly", moment, "zonemap_hourly", ("--hour", moment))
    if day is not None:
        when = parse_day(day).isoformat()
        return ConsolidationTarget("daily", when, "zonemap_daily", ("--day", when))
    raise CliError("zonemap consolidate needs --hour H (e.g. 2026-11-21T10:00:00Z) or --day D (e.g. 2026-11-21)")


def parse_retain_last(value: str | None) -> int | None:
    """`--retain-last`: snapshots kept per branch, at least 1."""
    if value is None:
        return None
    try:
        count = int(value)
    except ValueError:
        raise CliError(f"--retain-last {value!r} is not a whole number; pass e.g. 1") from None
    if count < 1:
        raise CliError(f"--retain-last {value!r} must be at least 1; the current snapshot is always kept")
    return count


def ingest_jobs(ingest_format: str, planned: dict[str, object]) -> list[tuple[str, list[str]]]:
    """The Spark jobs of one ingest run, from its run plan (lakeops.ingest.plan.RunPlan.as_dict()): CDC and
    direct events run one job that writes and commits; staged events run one writer job per share (the
    committer then commits them, in the command's own process, as the DAG's commit task does)."""
    mode, table = str(planned["mode"]), str(planned["table"])
    if mode == "streaming":
        raise CliError(f"table {table} has ingest.mode streaming: its streaming query ingests what lands, and a batch "
                       "run would commit every file a second time. Use the stream DAG, or set ingest.mode: batch")
    interval = ["--table", table, "--start", str(planned["start"]), "--end", str(planned["end"])]
    if ingest_format == "cdc":
        return [("ingest_cdc", interval)]
    if mode == "direct":
        return [("ingest_events", interval)]
    writer_args = planned["writer_args"]
    assert isinstance(writer_args, list | tuple)
    return [("stage_events", [str(a) for a in args]) for args in writer_args]

