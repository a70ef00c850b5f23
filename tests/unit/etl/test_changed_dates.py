"""The dates a source changed on since an expired watermark, from literal file facts."""

from __future__ import annotations

from datetime import date, datetime

from lakeops.etl.changed_dates import (
    DATA,
    EQUALITY_DELETES,
    POSITION_DELETES,
    FileFacts,
    WatermarkFacts,
    changed_dates,
)

DAY = (0, (date(2026, 11, 21),))
OTHER_DAY = (0, (date(2026, 11, 22),))
MARK = WatermarkFacts(sequence_number=5, total_records=300)


def data(path, seq, records, start, end, partition=DAY):
    return FileFacts(path, DATA, seq, records, partition, (start, end))


OLD = [data("s3://w/a.parquet", 2, 100, datetime(2026, 11, 21, 1), datetime(2026, 11, 21, 23)),
       data("s3://w/b.parquet", 3, 100, datetime(2026, 11, 21, 2), datetime(2026, 11, 21, 3)),
       data("s3://w/c.parquet", 4, 100, datetime(2026, 11, 22, 5), datetime(2026, 11, 22, 6), OTHER_DAY)]


def test_the_appended_files_time_bounds_give_the_dates_every_day_between_included():
    late = data("s3://w/d.parquet", 6, 50, datetime(2026, 11, 18, 23), datetime(2026, 11, 20, 1), (0, (None,)))
    assert changed_dates("events", "event_time", [*OLD, late], MARK, 350) == (
        date(2026, 11, 18), date(2026, 11, 19), date(2026, 11, 20))


def test_nothing_committed_since_is_no_date():
    assert changed_dates("events", "event_time", OLD, MARK, 300) == ()


def test_a_position_delete_dates_the_data_files_it_names_in_its_partition():
    delete = FileFacts("s3://w/del.parquet", POSITION_DELETES, 7, 3, DAY, referenced_paths=("s3://w/b.parquet",) * 2)
    assert changed_dates("events", "event_time", [*OLD, delete], MARK, 300) == (date(2026, 11, 21),)
    # Without path bounds it may apply to every older data file of its partition, not to another partition's.
    unnamed = FileFacts("s3://w/del.parquet", POSITION_DELETES, 7, 3, OTHER_DAY)
    assert changed_dates("events", "event_time", [*OLD, unnamed], MARK, 300) == (date(2026, 11, 22),)


def test_an_equality_delete_dates_the_older_files_of_its_partition_or_all_when_unpartitioned():
    newer = data("s3://w/e.parquet", 8, 10, datetime(2026, 11, 25), datetime(2026, 11, 25), OTHER_DAY)
    delete = FileFacts("s3://w/eq.parquet", EQUALITY_DELETES, 8, 1, OTHER_DAY)
    # e.parquet was committed with the delete (same sequence number): the delete does not apply to it, but
    # it is itself a file committed since the watermark.
    assert changed_dates("orders", "created_at", [*OLD, newer, delete], MARK, 310) == (
        date(2026, 11, 22), date(2026, 11, 25))
    unpartitioned = FileFacts("s3://w/eq.parquet", EQUALITY_DELETES, 8, 1, (1, ()))
    assert changed_dates("orders", "created_at", [*OLD, unpartitioned], MARK, 300) == (
        date(2026, 11, 21), date(2026, 11, 22))


def test_files_removed_since_the_watermark_leave_the_dates_unknown():
    compacted = [OLD[0], data("s3://w/bc.parquet", 6, 200, datetime(2026, 11, 21, 2), datetime(2026, 11, 22, 6))]
    reason = changed_dates("events", "event_time", compacted, MARK, 300)
    assert isinstance(reason, str)
    assert "holds 300 rows, not the watermark's 300 plus the 200 of the files committed since" in reason.replace(
        "data files hold", "holds")


def test_files_removed_by_kept_snapshots_date_their_rows():
    """A compaction of b and c after the watermark, whose snapshots are kept: the removed files' bounds date the
    rows, and the row count proves nothing else went (300 = 300 + 200 - 200)."""
    merged = data("s3://w/bc.parquet", 6, 200, datetime(2026, 11, 21, 2), datetime(2026, 11, 22, 6))
    assert changed_dates("events", "event_time", [OLD[0], merged], MARK, 300, (OLD[1], OLD[2])) == (
        date(2026, 11, 21), date(2026, 11, 22))


def test_a_file_committed_after_the_watermark_with_an_older_data_sequence_number_counts_as_committed_since():
    """A compaction started before the watermark (sequence number 4) commits its file after it (7) with its
    starting sequence number; a file added and removed since, not there at the watermark, takes no row off."""
    rewritten = FileFacts("s3://w/bc.parquet", DATA, 4, 200, DAY, (datetime(2026, 11, 21, 2), datetime(2026, 11, 22, 6)),
                          None, 7)
    passing = FileFacts("s3://w/p.parquet", DATA, 6, 40, DAY, (datetime(2026, 11, 23), datetime(2026, 11, 23)), None, 6)
    assert changed_dates("events", "event_time", [OLD[0], rewritten], MARK, 300, (OLD[1], OLD[2], passing)) == (
        date(2026, 11, 21), date(2026, 11, 22), date(2026, 11, 23))
    # Without the commit's own sequence number, the rewritten file reads as older than the watermark: unknown.
    unrecorded = FileFacts("s3://w/bc.parquet", DATA, 4, 200, DAY, (datetime(2026, 11, 21, 2), datetime(2026, 11, 22, 6)))
    assert isinstance(changed_dates("events", "event_time", [OLD[0], unrecorded], MARK, 300, (OLD[1], OLD[2])), str)


def test_row_counts_that_the_kept_snapshots_do_not_explain_leave_the_dates_unknown():
    merged = data("s3://w/bc.parquet", 6, 150, datetime(2026, 11, 21, 2), datetime(2026, 11, 22, 6))
    reason = changed_dates("events", "event_time", [OLD[0], merged], MARK, 250, (OLD[1],))
    assert isinstance(reason, str)
    assert "hold 250 rows, not the watermark's 300 plus the 150 of the files committed since, less the 100" in reason


def test_dates_cannot_be_known_without_recorded_facts_a_time_column_or_bounds():
    late = data("s3://w/d.parquet", 6, 50, datetime(2026, 11, 20), datetime(2026, 11, 20))
    assert "recorded no sequence number" in changed_dates("events", "event_time", OLD, None, 300)
    assert "recorded no sequence number" in changed_dates("events", "event_time", OLD, WatermarkFacts(0, 300), 300)
    assert "has no time_column" in changed_dates("users", None, [*OLD, late], MARK, 350)
    unbounded = FileFacts("s3://w/d.parquet", DATA, 6, 50, DAY)
    assert "s3://w/d.parquet of source events has no bounds of event_time" in changed_dates(
        "events", "event_time", [*OLD, unbounded], MARK, 350)


def test_more_than_a_year_of_dates_is_refused():
    wide = data("s3://w/d.parquet", 6, 50, datetime(2024, 1, 1), datetime(2026, 1, 1))
    assert "more than 366 days" in changed_dates("events", "event_time", [*OLD, wide], MARK, 350)
