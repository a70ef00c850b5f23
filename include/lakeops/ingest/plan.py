"""Plan an ingest batch from a data interval: pure, no Spark, no I/O."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import UTC, datetime

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


_BATCH_TIME = "%Y%m%dT%H%M%SZ"


def batch_id(table: str, start: datetime, end: datetime) -> str:
    return f"{table}@{start.astimezone(UTC):{_BATCH_TIME}}-{end.astimezone(UTC):{_BATCH_TIME}}"


def batch_interval(value: str) -> tuple[str, datetime, datetime] | None:
    """(table, start, end) of an interval batch id ('users@20261121T100000Z-20261121T100500Z');
    None for other ids (streaming micro-batches, ids of other tools)."""
    table, at, interval = value.partition("@")
    first, dash, last = interval.partition("-")
    if not (table and at and dash):
        return None
    try:
        start = datetime.strptime(first, _BATCH_TIME).replace(tzinfo=UTC)
        end = datetime.strptime(last, _BATCH_TIME).replace(tzinfo=UTC)
    except ValueError:
        return None
    return table, start, end


def first_batch_not_before(batch_ids: list[str], table: str, start: datetime) -> int | None:
    """Index of the oldest of `batch_ids` (newest first, as ancestors are walked) whose interval of
    `table` ends after `start`: changes of an interval starting at `start` are older than (or
    overlap) that batch's. None when every interval batch ended by `start`."""
    found = None
    for index, value in enumerate(batch_ids):
        interval = batch_interval(value)
        if interval is not None and interval[0] == table and interval[2] > start:
            found = index
    return found


def plan_ingest(config: LakeopsConfig, table: str, start: datetime, end: datetime) -> IngestPlan:
    """The batch for `table` over the data interval [start, end)."""
    spec = config.table(table)
    if start.tzinfo is None or end.tzinfo is None:
        raise ConfigError(f"data interval {start!r}..{end!r} has no time zone; pass ISO-8601 times with a zone, "
                          "e.g. 2026-11-21T10:00:00+00:00")
    if start >= end:
        raise ConfigError(f"data interval start {start.isoformat()} is not before end {end.isoformat()}; pass start < end")
    return IngestPlan(
        table=config.qualified(spec.name),
        quarantine_table=config.qualified(spec.quarantine_name),
        batch_id=batch_id(spec.name, start, end),
        source_dirs=tuple(interval_dirs(config.landing_root, spec.source_dir, start, end)),
        start=start,
        end=end,
    )


@dataclass(frozen=True)
class RunPlan:
    """What one run of the ingest DAG does, chosen from the table's ingest.commit_mode at run time."""

    mode: str
    """direct (one job writes and commits) | staged (writers, then one committer) | streaming (the
    table is streamed: the batch run does nothing)"""
    table: str
    batch_id: str
    start: str
    end: str
    writers: int
    writer_args: tuple[tuple[str, ...], ...]
    """Arguments of each writer job (spark_jobs/stage_events.py); none in direct mode or when the batch is committed."""

    def as_dict(self) -> dict:
        return asdict(self)


def plan_run(config: LakeopsConfig, table: str, start: datetime, end: datetime, committed: bool = False) -> RunPlan:
    """The run over [start, end): direct mode runs one job; staged mode runs one writer per share
    and then the committer, which alone runs (to finish a clean-up) when the batch is committed."""
    spec = config.table(table)
    batch = plan_ingest(config, table, start, end)
    if spec.ingest.mode == "streaming":
        return RunPlan("streaming", spec.name, batch.batch_id, start.isoformat(), end.isoformat(), 0, ())
    mode = spec.ingest.commit_mode
    writers = spec.ingest.writers if mode == "staged" else 1
    args: tuple[tuple[str, ...], ...] = ()
    if mode == "staged" and not committed:
        args = tuple(("--table", spec.name, "--start", start.isoformat(), "--end", end.isoformat(),
                      "--writer", str(k), "--writers", str(writers)) for k in range(writers))
    return RunPlan(mode, spec.name, batch.batch_id, start.isoformat(), end.isoformat(), writers, args)


def check_ingest_mode(config: LakeopsConfig, table: str, mode: str) -> None:
    """Refuse to ingest a table by the path its ingest.mode does not name: batch and streaming
    ingest of one table would both commit every landed file, under different batch ids."""
    spec = config.table(table)
    if spec.ingest.mode == mode:
        return
    if mode == "batch":
        raise ConfigError(
            f"tables.{spec.name}.ingest.mode is 'streaming': the streaming query ingests its landed files, and a batch "
            "ingest would commit them a second time under another batch id. Pause ingest_events for this table, or "
            "set ingest.mode: batch (and stop the stream) to ingest it in batches")
    raise ConfigError(
        f"tables.{spec.name}.ingest.mode is 'batch': the ingest_events DAG ingests its landed files, and streaming them "
        f"would commit them a second time under another batch id. Set tables.{spec.name}.ingest.mode: streaming "
        "(and pause ingest_events) to stream this table")


def parse_moment(value: str) -> datetime:
    """An interval bound from a job argument (ISO-8601 with a zone)."""
    try:
        return datetime.fromisoformat(value)
    except ValueError as e:
        raise ConfigError(f"{value!r} is not an ISO-8601 time; pass e.g. 2026-11-21T10:00:00+00:00 "
                          "(a manual run with no data interval needs the params start and end)") from e
