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
