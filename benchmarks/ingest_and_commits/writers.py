"""Part A, end to end: W concurrent writers over one interval's landed files, committing directly
or staged + one committer, on one table per (mode, W).

The interval's files are split into W x B micro-batches (lakeops.staging.plan.split_files); writer k
works through micro-batches k*B .. k*B+B-1 one after the other, as a streaming writer that commits
every few seconds would.

* direct: each micro-batch is lakeops' direct ingest (parse, quarantine, write, stage, publish;
  run_ingest under its own batch id) and commits itself, so W writers race for the table. Iceberg
  retries a commit that lost a race itself (commit.retry.num-retries, 4 by default, with backoff);
  the retries are counted from Iceberg's own log line ("Retrying task after failure",
  org.apache.iceberg.util.Tasks) in a log file of the benchmark's JVM. A micro-batch whose commit
  still fails is a failed commit: its rows are not committed.
* staged: each micro-batch is a staged writer share (run_stage: parse, write data files, publish a
  manifest); then one committer (commit_staged) commits every file in one commit per table.

Writers are threads with a Spark session each on one local Spark (2 cores cannot hold 16 JVMs).
"""

from __future__ import annotations

import dataclasses
import logging
import re
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.common import ingest_commits, total_records, writer_session
from lakeops.config import LakeopsConfig
from lakeops.ingest.plan import IngestPlan, plan_ingest
from lakeops.spark.ingest_events import landed_files, run_ingest
from lakeops.spark.stage_events import run_stage
from lakeops.staging.commit import commit_staged
from lakeops.staging.plan import split_files

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)

MODES = ("direct", "staged")
RETRY_LINE = "Retrying task after failure"
# Iceberg's retry warnings to a file of their own, one line each (newlines in messages escaped);
# everything else as Spark logs it by default.
LOG4J2 = """\
rootLogger.level = warn
rootLogger.appenderRef.console.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n%ex{3}
appender.retries.type = File
appender.retries.name = retries
appender.retries.fileName = {path}
appender.retries.layout.type = PatternLayout
appender.retries.layout.alwaysWriteExceptions = false
appender.retries.layout.pattern = %d{UNIX_MILLIS} %enc{%m}{CRLF}%n
logger.tasks.name = org.apache.iceberg.util.Tasks
logger.tasks.level = warn
logger.tasks.additivity = false
logger.tasks.appenderRef.retries.ref = retries
"""


def retry_log_options(work_dir: Path) -> tuple[Path, str]:
    """(retry log path, spark.driver.extraJavaOptions) for a JVM that logs Iceberg's commit retries there."""
    log_path = work_dir / "iceberg-retries.log"
    config = work_dir / "log4j2.properties"
    config.write_text(LOG4J2.replace("{path}", str(log_path)))
    return log_path, f"-Dlog4j2.configurationFile=file:{config}"


class RetryLog:
    """Counts Iceberg's retry lines added to the log since the last call."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def new_retries(self) -> int:
        if not self.path.exists():
            return 0
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            added = f.read()
            self.offset += len(added)
        return sum(RETRY_LINE in line for line in added.decode(errors="replace").splitlines())


@dataclass(frozen=True)
class Variant:
    mode: str
    writers: int

    @property
    def table(self) -> str:
        return f"events_{self.mode}_w{self.writers}"


@dataclass(frozen=True)
class Round:
    mode: str
    writers: int
    round: int
    rows: int
    """Rows committed to the table this round."""
    seconds: float
    """Wall time from the writers' start to the last commit (the committer's included)."""
    commits: int
    """Iceberg commits to the table and its quarantine (metadata versions added)."""
    retries: int
    """Commit attempts that lost a race and were retried (Iceberg's own, or the staged committer's)."""
    failed: int
    """Commits that failed for good (direct: micro-batches; staged: writer shares or the committer)."""
    landed: int = 0
    """Good rows landed in the round's interval: what a round commits when nothing fails."""
    errors: tuple[str, ...] = ()

    @property
    def rows_per_s(self) -> float:
        return self.rows / self.seconds

    @property
    def commits_per_s(self) -> float:
        return self.commits / self.seconds


def _reason(error: BaseException) -> str:
    """The Java exception behind a py4j error (its first line), else the Python one."""
    lines = [line.strip().removeprefix(": ") for line in str(error).splitlines() if line.strip()]
    java = next((line for line in lines if re.match(r"^[\w.$]+(Exception|Error): ", line)), None)
    return (java or f"{type(error).__name__}: {lines[0] if lines else ''}")[:240]


def _direct(sessions: list[SparkSession], config: LakeopsConfig, table: str, plan: IngestPlan,
            batches: int) -> tuple[list[str], int]:
    shares = split_files(landed_files(sessions[0], plan.source_dirs), len(sessions) * batches)

    def writer(k: int) -> list[str]:
        errors = []
        for j in range(k * batches, (k + 1) * batches):
            batch = dataclasses.replace(plan, batch_id=f"{plan.batch_id}.b{j:03d}")
            try:
                result = run_ingest(sessions[k], config, table, batch, files=shares[j])
            except Exception as e:  # a commit that failed after Iceberg's retries: its rows are not committed
                errors.append(_reason(e))
                continue
            if result.status != "committed" and shares[j]:
                errors.append(f"batch {batch.batch_id} was {result.status}")
        return errors

    with ThreadPoolExecutor(len(sessions)) as pool:
        errors = [e for found in pool.map(writer, range(len(sessions))) for e in found]
    return errors, 0


def _staged(sessions: list[SparkSession], config: LakeopsConfig, table: str, plan: IngestPlan,
            batches: int) -> tuple[list[str], int]:
    shares = len(sessions) * batches

    def writer(k: int) -> list[str]:
        errors = []
        for j in range(k * batches, (k + 1) * batches):
            try:
                run_stage(sessions[k], config, table, plan, j, shares)
            except Exception as e:
                errors.append(_reason(e))
        return errors

    with ThreadPoolExecutor(len(sessions)) as pool:
        errors = [e for found in pool.map(writer, range(len(sessions))) for e in found]
    if errors:
        return errors, 0
    try:
        result = commit_staged(config, table, plan, shares)
    except Exception as e:
        return [_reason(e)], 0
    return [], max(result.attempts - 1, 0)


def run_round(sessions: dict[Variant, list[SparkSession]], config: LakeopsConfig, variant: Variant, start: datetime,
              end: datetime, number: int, batches: int, landed: int, retry_log: RetryLog) -> Round:
    plan = plan_ingest(config, variant.table, start, end)
    commits, rows = ingest_commits(config, variant.table), total_records(config, variant.table)
    retry_log.new_retries()
    began = time.perf_counter()
    errors, own_retries = (_direct if variant.mode == "direct" else _staged)(sessions[variant], config, variant.table, plan,
                                                                             batches)
    seconds = time.perf_counter() - began
    result = Round(variant.mode, variant.writers, number, total_records(config, variant.table) - rows, seconds,
                   ingest_commits(config, variant.table) - commits, retry_log.new_retries() + own_retries, len(errors),
                   landed, tuple(errors))
    log.info("round %d, %s x%d: %d rows in %.1f s (%.0f rows/s), %d commits, %d retries, %d failed commits%s",
             number, variant.mode, variant.writers, result.rows, seconds, result.rows_per_s, result.commits,
             result.retries, result.failed, f" ({errors[0]})" if errors else "")
    return result


def run_rounds(spark: SparkSession, config: LakeopsConfig, variants: list[Variant], intervals: list[tuple[datetime, datetime]],
               landed: list[int], batches: int, retry_log: RetryLog) -> list[Round]:
    """Every variant over every interval (landed: its good rows), in rotating order; the first
    interval is an untimed warm-up."""
    sessions = {v: [writer_session(spark, config) for _ in range(v.writers)] for v in variants}
    results = []
    for number, (start, end) in enumerate(intervals):
        order = variants[number % len(variants):] + variants[:number % len(variants)]
        for variant in order:
            measured = run_round(sessions, config, variant, start, end, number, batches, landed[number], retry_log)
            if number:
                results.append(measured)
    return results


@dataclass(frozen=True)
class Summary:
    mode: str
    writers: int
    rounds: int
    rows: int
    """Median rows committed per round."""
    landed: int
    """Median good rows landed per round."""
    seconds: float
    rows_per_s: float
    commits: int
    commits_per_s: float
    retries: int
    """Total over rounds."""
    failed: int
    """Total over rounds."""
    errors: tuple[str, ...]
    speedup: float | None = None
    """Staged rows/s over direct rows/s at the same writer count (medians)."""


def summarize(rounds: list[Round]) -> list[Summary]:
    out = []
    for key in dict.fromkeys((r.mode, r.writers) for r in rounds):
        rs = [r for r in rounds if (r.mode, r.writers) == key]
        out.append(Summary(key[0], key[1], len(rs), int(statistics.median(r.rows for r in rs)),
                           int(statistics.median(r.landed for r in rs)),
                           statistics.median(r.seconds for r in rs), statistics.median(r.rows_per_s for r in rs),
                           int(statistics.median(r.commits for r in rs)), statistics.median(r.commits_per_s for r in rs),
                           sum(r.retries for r in rs), sum(r.failed for r in rs),
                           tuple(dict.fromkeys(e for r in rs for e in r.errors))))
    direct = {s.writers: s.rows_per_s for s in out if s.mode == "direct"}
    return [dataclasses.replace(s, speedup=s.rows_per_s / direct[s.writers]) if s.mode == "staged" and direct.get(s.writers)
            else s for s in sorted(out, key=lambda s: (s.writers, MODES.index(s.mode)))]


def intervals(start: datetime, rounds: int, minutes: int) -> list[tuple[datetime, datetime]]:
    """rounds + 1 consecutive intervals of `minutes` (one landed file a minute); the first is the warm-up."""
    return [(start + timedelta(minutes=r * minutes), start + timedelta(minutes=(r + 1) * minutes)) for r in range(rounds + 1)]
