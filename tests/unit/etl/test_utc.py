from datetime import UTC, datetime, timedelta, timezone

from lakeops.etl.utc import epoch_micros, from_micros


def test_epoch_microseconds_of_naive_utc_and_aware_datetimes_exactly():
    assert epoch_micros(datetime(2026, 11, 3, 4, 5, 6, 7)) == 1_793_678_706_000_007
    assert epoch_micros(datetime(2026, 11, 3, 4, 5, 6, 7, tzinfo=UTC)) == 1_793_678_706_000_007
    assert epoch_micros(datetime(2026, 11, 2, 23, 5, 6, 7, tzinfo=timezone(timedelta(hours=-5)))) == 1_793_678_706_000_007
    assert epoch_micros(datetime(1969, 12, 31, 23, 59, 59, 999_999)) == -1


def test_microseconds_back_to_the_naive_utc_datetime():
    assert from_micros(1_793_678_706_000_007) == datetime(2026, 11, 3, 4, 5, 6, 7)
    assert from_micros(-1) == datetime(1969, 12, 31, 23, 59, 59, 999_999)
    assert from_micros(epoch_micros(datetime(2026, 2, 28, 23, 0))) == datetime(2026, 2, 28, 23, 0)
