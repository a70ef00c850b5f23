"""Layout of the landing zone: <root>/<stream>/YYYY/MM/DD/HH/mm/<file>.jsonl by arrival minute (UTC).

A batch for the data interval [start, end) reads exactly the minute folders inside it,
so every landed file belongs to one interval and re-running an interval reads the same files.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

EVENTS_STREAM = "events"
CDC_STREAMS = {"users": "cdc/users", "orders": "cdc/orders"}


def utc(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        raise ValueError(f"{moment!r} has no time zone; pass an aware datetime (UTC)")
    return moment.astimezone(UTC)


def minute_dir(root: str, stream: str, moment: datetime) -> str:
    return f"{root.rstrip('/')}/{stream}/{utc(moment):%Y/%m/%d/%H/%M}"


def interval_dirs(root: str, stream: str, start: datetime, end: datetime) -> list[str]:
    """The minute folders whose arrival minute falls in [start, end)."""
    first = utc(start).replace(second=0, microsecond=0)
    if first < utc(start):
        first += timedelta(minutes=1)
    dirs = []
    moment = first
    while moment < utc(end):
        dirs.append(minute_dir(root, stream, moment))
        moment += timedelta(minutes=1)
    return dirs
