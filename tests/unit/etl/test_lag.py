"""A model's lag behind a source, from literal snapshot logs."""

from __future__ import annotations

from lakeops.etl.lag import SnapshotFact, SourceLag, lag_breached, most_behind, source_lag

# 1 <- 2 (append) <- 3 (compaction: no row changed) <- 4 (append) <- 5 (delete)
LOG = [SnapshotFact(1, None, 1_000, True), SnapshotFact(2, 1, 2_000, True), SnapshotFact(3, 2, 3_000, False),
       SnapshotFact(4, 3, 4_000, True), SnapshotFact(5, 4, 5_000, True)]


def test_commits_that_changed_rows_since_the_watermark_and_the_oldest_of_them():
    assert source_lag("s", LOG, 5, 2) == SourceLag("s", 2, 5, 2, 4_000)  # the compaction (3) is not counted
    assert source_lag("s", LOG, 5, 1) == SourceLag("s", 1, 5, 3, 2_000)
    assert source_lag("s", LOG, 3, 2) == SourceLag("s", 2, 3, 0, None)  # only a compaction since: nothing unread
    assert source_lag("s", LOG, 5, 5) == SourceLag("s", 5, 5, 0, None)


def test_unknown_when_there_is_no_watermark_or_it_is_off_the_current_lineage():
    assert source_lag("s", LOG, 5, None).unread_commits is None
    assert source_lag("s", LOG, 5, 99).unread_commits is None  # not an ancestor (another branch, a replaced table)
    assert source_lag("s", LOG[2:], 5, 1).unread_commits is None  # expired between: the walk ends before it
    assert source_lag("s", [], None, 1).unread_commits is None  # the source has no snapshot any more


def test_the_source_most_behind_and_whether_it_waited_past_the_sla():
    clicks, views = SourceLag("clicks", 1, 5, 2, 60_000), SourceLag("views", 1, 5, 1, 30_000)
    current, unknown = SourceLag("users", 1, 1, 0), SourceLag("orders", 9, 5, None)
    assert most_behind([clicks, current, views, unknown]) == views
    assert most_behind([current, unknown]) is None
    assert lag_breached(30_000, 1, 30_000 + 60_001) and not lag_breached(30_000, 1, 30_000 + 60_000)
    assert not lag_breached(None, 1, 10**12)  # nothing unread, or it cannot be told
