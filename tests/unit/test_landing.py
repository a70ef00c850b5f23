"""lakeops.landing: minute folders of the landing zone and the folders an interval reads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from lakeops.landing import CDC_STREAMS, EVENTS_STREAM, interval_dirs, minute_dir

UTC = UTC
PLUS_2 = timezone(timedelta(hours=2))
MINUS_5_30 = timezone(-timedelta(hours=5, minutes=30))


def at(hour: int, minute: int, second: int = 0, microsecond: int = 0, tz: timezone = UTC, day: int = 21) -> datetime:
    return datetime(2026, 11, day, hour, minute, second, microsecond, tzinfo=tz)


def test_stream_names():
    assert EVENTS_STREAM == "events"
    assert CDC_STREAMS == {"users": "cdc/users", "orders": "cdc/orders"}


@pytest.mark.parametrize(
    ("root", "stream", "moment", "expected"),
    [
        ("/land", "events", at(10, 7), "/land/events/2026/11/21/10/07"),
        ("/land/", "events", at(10, 7), "/land/events/2026/11/21/10/07"),
        ("s3a://landing/", "events", at(10, 7), "s3a://landing/events/2026/11/21/10/07"),
        ("/land", "cdc/users", at(0, 0), "/land/cdc/users/2026/11/21/00/00"),
        ("/land", "events", at(10, 7, 59, 999_999), "/land/events/2026/11/21/10/07"),
        ("/land", "events", at(12, 7, tz=PLUS_2), "/land/events/2026/11/21/10/07"),
        ("/land", "events", at(1, 30, tz=PLUS_2, day=22), "/land/events/2026/11/21/23/30"),
        ("/land", "events", at(4, 37, tz=MINUS_5_30), "/land/events/2026/11/21/10/07"),
    ],
)
def test_minute_dir(root, stream, moment, expected):
    assert minute_dir(root, stream, moment) == expected


def test_minute_dir_rejects_naive_datetime():
    with pytest.raises(ValueError, match="has no time zone"):
        minute_dir("/land", "events", datetime(2026, 11, 21, 10, 7))


def test_five_minute_interval_reads_five_folders():
    assert interval_dirs("/land", "events", at(10, 0), at(10, 5)) == [
        "/land/events/2026/11/21/10/00",
        "/land/events/2026/11/21/10/01",
        "/land/events/2026/11/21/10/02",
        "/land/events/2026/11/21/10/03",
        "/land/events/2026/11/21/10/04",
    ]


def test_unaligned_start_rounds_up_to_the_next_minute():
    assert interval_dirs("/land", "events", at(10, 0, 30), at(10, 5)) == [
        "/land/events/2026/11/21/10/01",
        "/land/events/2026/11/21/10/02",
        "/land/events/2026/11/21/10/03",
        "/land/events/2026/11/21/10/04",
    ]


def test_start_one_microsecond_after_the_minute_rounds_up():
    assert interval_dirs("/land", "events", at(10, 0, 0, 1), at(10, 2)) == ["/land/events/2026/11/21/10/01"]


def test_unaligned_end_includes_the_minute_it_falls_in():
    assert interval_dirs("/land", "events", at(10, 3), at(10, 5, 30)) == [
        "/land/events/2026/11/21/10/03",
        "/land/events/2026/11/21/10/04",
        "/land/events/2026/11/21/10/05",
    ]


def test_interval_across_midnight():
    assert interval_dirs("s3a://landing", "cdc/orders", at(23, 58), at(0, 2, day=22)) == [
        "s3a://landing/cdc/orders/2026/11/21/23/58",
        "s3a://landing/cdc/orders/2026/11/21/23/59",
        "s3a://landing/cdc/orders/2026/11/22/00/00",
        "s3a://landing/cdc/orders/2026/11/22/00/01",
    ]


def test_interval_in_another_zone_reads_utc_folders():
    assert interval_dirs("/land", "events", at(12, 0, tz=PLUS_2), at(12, 2, tz=PLUS_2)) == [
        "/land/events/2026/11/21/10/00",
        "/land/events/2026/11/21/10/01",
    ]


@pytest.mark.parametrize(
    ("start", "end"),
    [
        (at(10, 0), at(10, 0)),
        (at(10, 5), at(10, 0)),
        (at(10, 0, 15), at(10, 0, 45)),
    ],
)
def test_empty_intervals_read_nothing(start, end):
    assert interval_dirs("/land", "events", start, end) == []


@pytest.mark.parametrize("boundary_second", [0, 30])
def test_consecutive_intervals_read_every_minute_exactly_once(boundary_second):
    boundaries = [at(10, 0, boundary_second) + timedelta(minutes=5 * i) for i in range(13)]
    pieces = [interval_dirs("/land", "events", a, b) for a, b in zip(boundaries, boundaries[1:], strict=False)]
    flat = [d for piece in pieces for d in piece]
    assert len(flat) == len(set(flat)) == 60
    assert flat == interval_dirs("/land", "events", boundaries[0], boundaries[-1])
    assert all(len(piece) == 5 for piece in pieces)


def test_interval_dirs_reject_naive_start():
    with pytest.raises(ValueError, match="has no time zone"):
        interval_dirs("/land", "events", datetime(2026, 11, 21, 10, 0), at(10, 5))


def test_interval_dirs_reject_naive_end():
    with pytest.raises(ValueError, match="has no time zone"):
        interval_dirs("/land", "events", at(10, 0), datetime(2026, 11, 21, 10, 5))
