"""Run a compaction plan with Iceberg's Spark procedures, on the planned partitions only. Decides
nothing: which partitions, which rewrite and which options come from lakeops.compaction.plan.

Conflicts with concurrent writers (a CDC MERGE adding deletes to a file being rewritten) are
expected. A procedure that fails as a whole on a conflict (one commit, no partial progress) is
retried with the action's retry options, which turn partial progress on: Iceberg plans again on
the new state and commits file groups separately, so a group whose commit conflicts again is left
out and counted in `failed_data_files_count`. Attempts go on up to `attempts`; whatever still
failed is reported in the result (`partial`, or `failed` with the error). Nothing is silently
lost: Iceberg refuses every conflicting commit, so a delete is never dropped.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from lakeops.compaction.plan import REWRITE_DATA, REWRITE_DELETES, REWRITE_MANIFESTS, CompactionAction
from lakeops.sql_literals import quote, string_map

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)

CONFLICT_MARKERS = ("ValidationException", "CommitFailedException", "Cannot commit", "conflicting", "found new")
DEFAULT_ATTEMPTS = 3


@dataclass
class ActionResult:
    kind: str
    partition: str
    partitions: list[str] = field(default_factory=list)
    """Every partition the call covered."""
    status: str = "pending"
    """done | partial (some groups still conflicted after every attempt) | failed | dry_run"""
    attempts: int = 0
    outputs: dict[str, int] = field(default_factory=dict)
    """The procedure's output columns, summed over attempts (rewritten_data_files_count, ...)."""
    conflicts: list[str] = field(default_factory=list)
    """One line per conflicting attempt: what failed and how it was handled."""
    error: str | None = None
    duration_s: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def procedure_sql(catalog: str, table: str, action: CompactionAction, *, retry: bool = False) -> str:
    """The CALL statement of one action (table is catalog.namespace.name); `retry`: of an attempt
    after a conflicting commit (the action's retry options)."""
    args = [f"table => {quote(table)}"]
    options = action.retry_options if retry and action.retry_options else action.options
    if action.kind == REWRITE_DATA:
        args.append(f"strategy => {quote(action.strategy or 'binpack')}")
        if action.sort_order:
            args.append(f"sort_order => {quote(action.sort_order)}")
        if options:
            args.append(f"options => {string_map(options)}")
        if action.where:
            args.append(f"where => {quote(action.where)}")
    elif action.kind == REWRITE_DELETES:
        if action.where:
            args.append(f"where => {quote(action.where)}")
        if options:
            args.append(f"options => {string_map(options)}")
    elif action.kind != REWRITE_MANIFESTS:
        raise ValueError(f"unknown compaction action kind {action.kind!r}")
    return f"CALL {catalog}.system.{action.kind}({', '.join(args)})"


def is_conflict(text: str) -> bool:
    return any(marker in text for marker in CONFLICT_MARKERS)


def error_line(text: str) -> str:
    """The line of a Spark/py4j error that names the Java exception: py4j's first line only says
    which call failed ("An error occurred while calling o1104.sql.")."""
    lines = [line.strip().lstrip(": ").strip() for line in text.splitlines()]
    named = [line for line in lines if line and not line.startswith("An error occurred while calling")]
    return (named[0] if named else text.strip())[:400]


def attempt_on_conflict(result: ActionResult, attempts: int, subject: str, attempt: Callable[[int], bool]) -> None:
    """Call `attempt(n)` for n = 1.. up to `attempts`, into `result`. It returns True when the
    action is done, False when it should go again (it records why). A commit refused because of
    a concurrent one is recorded in result.conflicts and tried again, and fails the action on the
    last attempt; any other error fails it at once."""
    for n in range(1, attempts + 1):
        result.attempts = n
        try:
            done = attempt(n)
        except Exception as e:  # py4j/Spark wrap the Java exception; its class and message are in str(e)
            text = error_line(str(e))
            if not is_conflict(str(e)):
                result.status, result.error = "failed", text
                return
            result.conflicts.append(f"attempt {n}: the commit conflicted with a concurrent one: {text}")
            log.warning("%s conflicted with a concurrent commit (attempt %d of %d): %s", subject, n, attempts, text)
            if n == attempts:
                result.status, result.error = "failed", text
            continue
        if done:
            result.status = "done"
            return


def run_action(spark: SparkSession, catalog: str, table: str, action: CompactionAction,
               attempts: int = DEFAULT_ATTEMPTS) -> ActionResult:
    partitions = list(action.partitions or ([action.partition] if action.partition else []))
    result = ActionResult(action.kind, action.partition, partitions)
    subject = f"compaction of {table} {action.partition or '(table)'}"
    started = time.monotonic()

    def attempt(n: int) -> bool:
        retry = n > 1  # attempts after the first follow a conflict
        spark.sparkContext.setJobDescription(
            f"lakeops compact {table} {action.partition or '(table)'}: {action.kind} attempt {n}")
        log.info("%s: %s (attempt %d of %d%s)", subject, action.kind, n, attempts,
                 ", retry options" if retry and action.retry_options else "")
        row = spark.sql(procedure_sql(catalog, table, action, retry=retry)).first()
        outputs = row.asDict() if row is not None else {}
        for key, value in outputs.items():
            result.outputs[key] = result.outputs.get(key, 0) + int(value or 0)
        failed = int(outputs.get("failed_data_files_count") or 0)
        if failed:
            result.conflicts.append(f"attempt {n}: {failed} data files in groups whose commit conflicted were left as they were")
            log.warning("%s: %d data files in conflicting groups not rewritten (attempt %d of %d)", subject, failed, n, attempts)
            result.status = "partial"
        return not failed

    attempt_on_conflict(result, attempts, subject, attempt)
    result.duration_s = round(time.monotonic() - started, 2)
    return result
