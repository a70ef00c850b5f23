"""The dangling-delete drop's attempts: a drop refused on a concurrent commit is tried again from the
new state; any other error fails at once.

tests/integration/compaction/test_dangling.py shows on a real table that Iceberg refuses a drop
whose files a concurrent commit removed first. Making that happen inside the runner's own attempt
needs another writer to land between its read and its commit, a matter of timing; here each
attempt (`_drop_once`) is replaced by a stand-in that raises the text py4j carries for that
refusal, or returns what a drop removed."""

from __future__ import annotations

import pytest

from lakeops.compaction.plan import REMOVE_DANGLING, CompactionAction
from lakeops.spark import dangling

REFUSED = ("org.apache.iceberg.exceptions.ValidationException: Missing required files to delete: "
           "file:/wh/orders/data/d=1/00001-deletes.parquet")
ACTION = CompactionAction(REMOVE_DANGLING, "", None, "dangling delete files")


class _Context:
    def setJobDescription(self, text: str) -> None:  # noqa: N802 (pyspark's API)
        pass


class _Session:
    sparkContext = _Context()  # noqa: N815


@pytest.fixture()
def attempts(monkeypatch):
    """Answers the n-th attempt with the n-th of the answers set on it: an exception or the outputs."""
    answers: list[object] = []

    def drop_once(spark, catalog, identifier, qualified):
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(dangling, "_drop_once", drop_once)
    return answers


def test_a_refused_drop_is_tried_again_and_reports_the_conflict(attempts):
    attempts += [RuntimeError(REFUSED), {"removed_delete_files_count": 12, "removed_delete_records": 90}]
    result = dangling.remove_dangling_deletes(_Session(), None, "lakeops.orders", "c.lakeops.orders", ACTION, 3)

    assert (result.status, result.attempts) == ("done", 2)
    assert result.outputs == {"removed_delete_files_count": 12, "removed_delete_records": 90}
    assert len(result.conflicts) == 1 and "Missing required files to delete" in result.conflicts[0]


def test_a_drop_refused_on_every_attempt_fails_with_the_error(attempts):
    attempts += [RuntimeError(REFUSED)] * 3
    result = dangling.remove_dangling_deletes(_Session(), None, "lakeops.orders", "c.lakeops.orders", ACTION, 3)

    assert (result.status, result.attempts, len(result.conflicts)) == ("failed", 3, 3)
    assert result.error.startswith("org.apache.iceberg.exceptions.ValidationException: Missing required files")


def test_an_error_other_than_a_conflict_is_not_retried(attempts):
    attempts += [RuntimeError("java.io.IOException: No space left on device"), {"removed_delete_files_count": 1}]
    result = dangling.remove_dangling_deletes(_Session(), None, "lakeops.orders", "c.lakeops.orders", ACTION, 3)

    assert (result.status, result.attempts, result.conflicts) == ("failed", 1, [])
    assert result.error == "java.io.IOException: No space left on device"
