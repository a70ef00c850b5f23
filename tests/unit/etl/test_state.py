from __future__ import annotations

from lakeops.etl.state import keys_written


def test_a_merge_counts_the_target_rows_it_inserted_updated_and_deleted():
    summary = {"spark.merge-into.num-target-rows-inserted": "14465", "spark.merge-into.num-target-rows-updated": "54",
               "spark.merge-into.num-target-rows-deleted": "3", "spark.merge-into.num-target-rows-copied": "14222",
               "added-records": "28741"}
    assert keys_written(summary) == 14522


def test_an_overwrite_counts_the_rows_it_wrote():
    assert keys_written({"added-records": "1468287", "deleted-records": "1453875"}) == 1468287
    assert keys_written({}) == 0


def test_compactions_and_commits_that_matched_no_row_change_no_rows():
    from lakeops.etl.state import changes_rows

    # the summaries Iceberg wrote for a DELETE and an UPDATE that matched no row (merge-on-read), and a compaction
    assert not changes_rows("delete", {"total-records": "2", "total-data-files": "1", "changed-partition-count": "0"})
    assert not changes_rows("overwrite", {"total-records": "2", "total-delete-files": "0"})
    assert not changes_rows("replace", {"added-data-files": "1", "deleted-data-files": "3", "added-records": "9",
                                        "deleted-records": "9"})
    assert changes_rows("overwrite", {"added-delete-files": "1", "added-position-deletes": "1"})
    assert changes_rows("append", {"added-data-files": "1", "added-records": "5"})
