"""A time axis for the table page's charts: the window shown and round tick times (every 5 minutes ... every
week) labelled as a person reads them, in UTC. Pure."""

from __future__ import annotations

from datetime import UTC, datetime

MINUTE_MS = 60_000
HOUR_MS = 60 * MINUTE_MS
DAY_MS = 24 * HOUR_MS
STEPS_MS = (MINUTE_MS, 5 * MINUTE_MS, 15 * MINUTE_MS, 30 * MINUTE_MS, HOUR_MS, 3 * HOUR_MS, 6 * HOUR_MS, 12 * HOUR_MS,
            DAY_MS, 2 * DAY_MS, 7 * DAY_MS, 14 * DAY_MS, 30 * DAY_MS)
MAX_TICKS = 7


def window(times_ms: list[int], now_ms: int, hours: float) -> tuple[int, int]:
    """(start, end) shown: up to `now`, back to the oldest time given but no further than `hours` before now,
    with a margin so the first point is not on the edge; at least ten minutes."""
    earliest = now_ms - int(hours * HOUR_MS)
    start = max(earliest, min(times_ms, default=now_ms))
    start -= max(int((now_ms - start) * 0.05), 5 * MINUTE_MS)
    return max(min(start, now_ms - 10 * MINUTE_MS), earliest), now_ms


def tick_step(start_ms: int, end_ms: int, max_ticks: int = MAX_TICKS) -> int:
    """The smallest round step that puts at most max_ticks ticks between start and end."""
    span = max(1, end_ms - start_ms)
    for step in STEPS_MS:
        if span / step <= max_ticks:
            return step
    return STEPS_MS[-1]


def _label(ms: int, step: int, previous: int | None) -> str:
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    if step >= DAY_MS:
        return moment.strftime("%b %d")
    new_day = previous is None or datetime.fromtimestamp(previous / 1000, tz=UTC).date() != moment.date()
    return moment.strftime("%b %d %H:%M" if new_day else "%H:%M")


def ticks(start_ms: int, end_ms: int, max_ticks: int = MAX_TICKS) -> list[tuple[int, str]]:
    """(time, label) of each tick in [start, end]: multiples of the step (midnight UTC for days and weeks are
    counted from the epoch, so a weekly tick falls on a Thursday); the date is shown where it changes."""
    step = tick_step(start_ms, end_ms, max_ticks)
    first = -(-start_ms // step) * step
    out: list[tuple[int, str]] = []
    previous = None
    for ms in range(first, end_ms + 1, step):
        out.append((ms, _label(ms, step, previous)))
        previous = ms
    return out
