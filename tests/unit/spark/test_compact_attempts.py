"""The runner's attempts: one commit first, partial progress on the retries after a conflict.

tests/integration/compaction/test_race.py makes a real call lose its first attempt to a CDC
MERGE. What real Spark and Iceberg cannot produce on demand is the rest of the sequence: groups
that conflict again on every retry (another writer landing during each retry, a matter of
timing). Here a stand-in session answers each CALL the way Iceberg's procedure does: it raises the
error text py4j carries for a conflicting commit, or returns the procedure's output row."""

from __future__ import annotations

from lakeops.compaction.plan import REWRITE_DATA, CompactionAction
from lakeops.spark.compact import run_action

CONFLICT = ("java.lang.RuntimeException: Cannot commit rewrite because of a ValidationException or "
            "CommitFailedException. This usually means that this rewrite has conflicted with another concurrent "
            "Iceberg operation.")
ACTION = CompactionAction(REWRITE_DATA, "2 partitions", "(d = 1) OR (d = 2)", "why", strategy="binpack",
                          options={"min-input-files": "1"},
                          retry_options={"min-input-files": "1", "partial-progress.enabled": "true"})


class RuntimeException(Exception):
    """What py4j raises for a Java RuntimeException: its text carries the Java class and message."""


class _Row:
    def __init__(self, **values: int) -> None:
        self._values = values

    def asDict(self) -> dict[str, int]:  # noqa: N802 (pyspark's Row API)
        return self._values


class _Context:
    def setJobDescription(self, text: str) -> None:  # noqa: N802
        pass


class _Session:
    """Answers the n-th CALL with the n-th of `answers`: an exception to raise or an output row."""

    def __init__(self, *answers: Exception | _Row) -> None:
        self.answers, self.statements = list(answers), []
        self.sparkContext = _Context()

    def sql(self, statement: str) -> _Session:
        self.statements.append(statement)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        self._row = answer
        return self

    def first(self) -> _Row:
        return self._row


def test_no_conflict_commits_once_without_partial_progress():
    session = _Session(_Row(rewritten_data_files_count=5, added_data_files_count=2, failed_data_files_count=0))
    result = run_action(session, "c", "c.n.orders", ACTION)

    assert (result.status, result.attempts, result.conflicts) == ("done", 1, [])
    assert "partial-progress" not in session.statements[0]


def test_a_conflicting_commit_is_retried_with_partial_progress():
    session = _Session(RuntimeException(f"An error occurred while calling o1104.sql.\n: {CONFLICT}\n\tat org.apache..."),
                       _Row(rewritten_data_files_count=5, added_data_files_count=2, failed_data_files_count=0))
    result = run_action(session, "c", "c.n.orders", ACTION)

    assert (result.status, result.attempts) == ("done", 2)
    assert "partial-progress" not in session.statements[0]
    assert "'partial-progress.enabled', 'true'" in session.statements[1]
    assert result.conflicts == [f"attempt 1: the commit conflicted with a concurrent one: {CONFLICT}"]
    assert result.outputs["rewritten_data_files_count"] == 5


def test_a_group_that_conflicts_on_every_retry_is_reported_partial():
    left_out = _Row(rewritten_data_files_count=3, added_data_files_count=1, failed_data_files_count=2)
    session = _Session(RuntimeException(CONFLICT), left_out, _Row(rewritten_data_files_count=0, added_data_files_count=0,
                                                                   failed_data_files_count=2))
    result = run_action(session, "c", "c.n.orders", ACTION, attempts=3)

    assert (result.status, result.attempts) == ("partial", 3)
    assert all("'partial-progress.enabled', 'true'" in s for s in session.statements[1:])
    assert result.conflicts[1:] == [f"attempt {n}: 2 data files in groups whose commit conflicted were left as they were"
                                    for n in (2, 3)]
    assert result.outputs["rewritten_data_files_count"] == 3


def test_an_error_that_is_not_a_conflict_is_not_retried():
    session = _Session(RuntimeException("java.io.FileNotFoundException: s3://bucket/x.parquet"))
    result = run_action(session, "c", "c.n.orders", ACTION)

    assert (result.status, result.attempts, result.error) == ("failed", 1, "java.io.FileNotFoundException: s3://bucket/x.parquet")
    assert len(session.statements) == 1
