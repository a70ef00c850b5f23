"""lakeops.staging.plan: writer shares, staging paths, partition values in Spark SQL, stale batches."""

from __future__ import annotations

import pytest

from lakeops.exceptions import IngestError
from lakeops.staging.plan import (
    LandedFile,
    attempt_data_dir,
    batch_id_of,
    batch_key,
    claim_uri,
    listing_digest,
    manifest_uri,
    partition_value_sql,
    removable,
    split_files,
    staged_data_root,
    staging_dir,
    stale_batches,
    started_uri,
    writer_share,
)

FILES = [LandedFile("s3://land/events/10/00/a.jsonl", 500), LandedFile("s3://land/events/10/01/b.jsonl", 400),
         LandedFile("s3://land/events/10/02/c.jsonl", 300), LandedFile("s3://land/events/10/03/d.jsonl", 200),
         LandedFile("s3://land/events/10/04/e.jsonl", 100)]
HOUR = 3_600_000


def _names(shares):
    return [[p.rsplit("/", 1)[1] for p in share] for share in shares]


def test_shares_are_balanced_by_bytes_largest_first():
    assert _names(split_files(FILES, 2)) == [["a.jsonl", "d.jsonl", "e.jsonl"], ["b.jsonl", "c.jsonl"]]
    assert _names(split_files(FILES, 3)) == [["a.jsonl"], ["b.jsonl", "e.jsonl"], ["c.jsonl", "d.jsonl"]]


def test_every_file_in_exactly_one_share_and_extra_writers_get_none():
    shares = split_files(FILES, 7)
    assert sorted(p for share in shares for p in share) == sorted(f.path for f in FILES)
    assert [len(share) for share in shares] == [1, 1, 1, 1, 1, 0, 0]


def test_ties_go_to_the_writer_with_fewer_files_then_the_lower_index():
    same = [LandedFile(f"f{i}", 10) for i in range(5)]
    assert split_files(same, 2) == [["f0", "f2", "f4"], ["f1", "f3"]]


def test_the_split_depends_on_the_listing_not_its_order():
    assert split_files(list(reversed(FILES)), 3) == split_files(FILES, 3)
    assert writer_share(FILES, 1, 3) == split_files(FILES, 3)[1]


def test_one_writer_takes_everything_and_no_files_give_empty_shares():
    assert split_files(FILES, 1) == [sorted(f.path for f in FILES)]
    assert split_files([], 3) == [[], [], []]


@pytest.mark.parametrize("writer, writers", [(3, 3), (-1, 3)])
def test_writer_index_must_be_one_of_the_writers(writer, writers):
    with pytest.raises(IngestError, match=rf"writer {writer} is not one of {writers} writers \(0 .. 2\)"):
        writer_share(FILES, writer, writers)


def test_a_listing_naming_a_file_twice_is_refused():
    with pytest.raises(IngestError, match="names a file twice"):
        split_files([FILES[0], FILES[0]], 2)
    with pytest.raises(IngestError, match="writers: 0 must be at least 1"):
        split_files(FILES, 0)


def test_listing_digest_changes_with_any_file_or_size_but_not_with_order():
    digest = listing_digest(FILES)
    assert digest == listing_digest(list(reversed(FILES))) and len(digest) == 64
    assert digest != listing_digest(FILES[:-1])
    assert digest != listing_digest([*FILES[:-1], LandedFile(FILES[-1].path, 101)])


def test_batch_key_is_the_interval_part_of_the_batch_id():
    key = batch_key("events", "events@20261121T100000Z-20261121T100500Z")
    assert key == "20261121T100000Z-20261121T100500Z"
    assert batch_id_of("events", key) == "events@20261121T100000Z-20261121T100500Z"


@pytest.mark.parametrize("batch", ["clicks@20261121T100000Z-20261121T100500Z", "events@", "events@a/b", "events"])
def test_batch_key_refuses_ids_of_other_tables_or_unsafe_names(batch):
    with pytest.raises(IngestError, match="is not <table>@<interval> for table 'events'"):
        batch_key("events", batch)


def test_staging_layout_under_the_table_location():
    loc, key = "s3://lake/warehouse/lakeops/events/", "20261121T100000Z-20261121T100500Z"
    assert staging_dir(loc, key) == "s3://lake/warehouse/lakeops/events/_staging/20261121T100000Z-20261121T100500Z"
    assert manifest_uri(loc, key, 3) == f"{staging_dir(loc, key)}/w003.manifest.json"
    assert started_uri(loc, key, 3, "ab12") == f"{staging_dir(loc, key)}/w003-ab12.started"
    assert claim_uri(loc, key) == f"{staging_dir(loc, key)}/commit.claim"
    assert staged_data_root(loc, key) == "s3://lake/warehouse/lakeops/events/data/staged/20261121T100000Z-20261121T100500Z"
    assert attempt_data_dir(loc, key, 12, "ab12") == f"{staged_data_root(loc, key)}/w012-ab12"


@pytest.mark.parametrize("transform, sql", [
    ("identity", "`country`"),
    ("day", "unix_date(lakeops.system.days(`country`))"),
    ("hour", "lakeops.system.hours(`country`)"),
    ("month", "lakeops.system.months(`country`)"),
    ("year", "lakeops.system.years(`country`)"),
    ("bucket[8]", "lakeops.system.bucket(8, `country`)"),
    ("truncate[4]", "lakeops.system.truncate(4, `country`)"),
    ("void", "CAST(NULL AS INT)"),
])
def test_partition_values_are_computed_with_icebergs_spark_functions(transform, sql):
    assert partition_value_sql(transform, "country", "lakeops") == sql


def test_unknown_transforms_point_to_direct_mode():
    with pytest.raises(IngestError, match=r"partition transform 'zorder' of column 'x' is not supported by staged writes; "
                                          r"use commit_mode: direct"):
        partition_value_sql("zorder", "x", "lakeops")


def test_stale_batches_are_older_than_the_max_age_and_never_the_one_being_committed():
    now = 100 * HOUR
    newest = {"old": now - 25 * HOUR, "edge": now - 24 * HOUR, "fresh": now - HOUR, "current": now - 48 * HOUR}
    assert stale_batches(newest, now, 24, keep="current") == ["old"]
    assert stale_batches(newest, now, 0.5, keep="current") == ["edge", "fresh", "old"]
    assert stale_batches({}, now, 24) == []


def test_removable_is_everything_but_the_committed_files():
    staged = ["/t/data/staged/k/w000-a/x.parquet", "/t/data/staged/k/w000-b/y.parquet", "/t/data/staged/k/w001-c/z.parquet"]
    assert removable(staged, {"/t/data/staged/k/w000-b/y.parquet"}) == [staged[0], staged[2]]
    assert removable(staged, set(staged)) == []
