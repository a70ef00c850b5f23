"""Which commits changed rows: freshness counts only those (literal snapshot summaries)."""

from __future__ import annotations

import pytest

from lakeops.tables.commits import changes_rows, last_row_change_ms


@pytest.mark.parametrize(("operation", "summary", "changed"), [
    ("append", {"added-data-files": "2", "added-records": "100"}, True),
    ("overwrite", {"added-delete-files": "1", "added-position-deletes": "3"}, True),
    ("delete", {"deleted-data-files": "1", "deleted-records": "10"}, True),
    ("overwrite", {"added-dvs": "1"}, True),
    ("replace", {"added-data-files": "1", "deleted-data-files": "12", "added-records": "100", "deleted-records": "100"}, False),
    ("append", {"added-data-files": "0", "added-records": "0", "total-records": "500"}, False),  # Flink's empty commit
    ("overwrite", {"removed-delete-files": "40", "removed-position-deletes": "900"}, False),  # dangling deletes dropped
    (None, {}, False),
])
def test_a_commit_changes_rows_when_it_adds_or_removes_some(operation, summary, changed):
    assert changes_rows(operation, summary) is changed


def test_the_newest_row_change_wins_and_rewrites_after_it_do_not_count():
    history = [(5000, "replace", {"added-data-files": "1"}), (4000, "append", {"added-data-files": "0"}),
               (3000, "append", {"added-records": "7"}), (1000, "append", {"added-records": "1"})]
    assert last_row_change_ms(history) == 3000
    assert last_row_change_ms([(5000, "replace", {})]) is None
