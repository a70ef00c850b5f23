"""Land behavioral events at a set rate (rows per second, rows per file) for as long as asked.

The schedule is planned as data (`pace`): file i lands when its last row is due, so the landed
rows follow the rate within one file. `land_paced` then writes the files at their due times and
reports how far behind the schedule it fell, so a driver (the ingest throughput benchmark) knows
whether the rate it asked for was really offered. A backlog schedule lands every file at once.

Lines are rendered from a pool of generated events (`EventPool`): every good line gets its own
event_id (`<run>-<file>-<row>`) and the file's arrival time as event_time, so a run at tens of
thousands of rows per second costs string joins, not random draws and JSON encoding per row.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from lakeops.generator.events import _EventSource, _iso
from lakeops.generator.files import write_jsonl
from lakeops.landing import EVENTS_STREAM, minute_dir

POOL_SIZE = 4096


@dataclass(frozen=True)
class PacedFile:
    index: int
    due_s: float
    """Seconds after the run's start at which the file lands."""
    rows: int


def pace(rows_per_second: float, rows_per_file: int, seconds: float, backlog: bool = False) -> list[PacedFile]:
    """The files of a run of `seconds` at `rows_per_second`, at most `rows_per_file` rows each.

    File i holds rows [i * rows_per_file, ...) and is due when its last row is: (rows so far) /
    rate. backlog: every file due at 0 (the same rows, landed before the reader starts)."""
    if not rows_per_second > 0 or rows_per_file < 1 or not seconds > 0:
        raise ValueError(f"rows_per_second={rows_per_second}, rows_per_file={rows_per_file} and seconds={seconds} must "
                         "all be positive, e.g. 43000 rows/s in files of 43000 rows for 600 s")
    total = round(rows_per_second * seconds)
    if total < 1:
        raise ValueError(f"{rows_per_second} rows/s for {seconds} s is less than one row; raise either")
    files = []
    for i in range(math.ceil(total / rows_per_file)):
        landed = min((i + 1) * rows_per_file, total)
        files.append(PacedFile(i, 0.0 if backlog else landed / rows_per_second, landed - i * rows_per_file))
    return files


class EventPool:
    """Generated events (lakeops.generator.events: skewed users, event types, devices, a share of bad lines)
    rendered once, then stamped per row with a unique event_id and the file's event_time."""

    def __init__(self, seed: int = 7, size: int = POOL_SIZE, bad_fraction: float = 0.005) -> None:
        source = _EventSource(seed, users=5000)
        moment = datetime(2026, 1, 1, tzinfo=UTC)
        self.tails: list[str | None] = []
        self.bad: list[str] = []
        for _ in range(size):
            event, _late = source.event(moment, 0.0)
            if source.rng.random() < bad_fraction:
                self.bad.append(source.spoil(event)[1])
                self.tails.append(None)
            else:
                rest = {k: v for k, v in event.items() if k not in ("event_id", "event_time")}
                self.tails.append(json.dumps(rest, separators=(",", ":"))[1:])

    def lines(self, prefix: str, rows: int, event_time: str) -> tuple[list[str], int]:
        """(lines, bad lines) of one file: good lines get event_id <prefix>-<row>."""
        head = f'","event_time":"{event_time}",'
        out, bad, size = [], 0, len(self.tails)
        for i in range(rows):
            tail = self.tails[i % size]
            if tail is None:
                out.append(self.bad[bad % len(self.bad)])
                bad += 1
            else:
                out.append('{"event_id":"' + prefix + "-" + str(i) + head + tail)
        return out, bad


@dataclass
class PacedRun:
    files: int = 0
    rows: int = 0
    bad: int = 0
    seconds: float = 0.0
    max_behind_s: float = 0.0
    """The most any file landed after its due time: above a few seconds the rate asked for was not offered."""
    landed_at: dict[str, float] = field(default_factory=dict)
    """File name -> wall-clock time (time.time()) it was in place."""

    @property
    def rows_per_second(self) -> float:
        return self.rows / self.seconds if self.seconds else 0.0


def land_paced(root: str, schedule: list[PacedFile], run_id: str, pool: EventPool | None = None,
               clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
               stop: Callable[[], bool] = lambda: False) -> PacedRun:
    """Write the schedule's files under the events stream's arrival-minute folders, each at its due time.
    Files are named <run_id>-<index>.jsonl and written whole (lakeops.generator.files.write_jsonl)."""
    pool = pool or EventPool()
    run = PacedRun()
    began = clock()
    for f in schedule:
        wait = f.due_s - (clock() - began)
        if wait > 0:
            sleep(wait)
        if stop():
            break
        run.max_behind_s = max(run.max_behind_s, clock() - began - f.due_s)
        now = datetime.now(UTC)
        name = f"{run_id}-{f.index:06d}"
        lines, bad = pool.lines(name, f.rows, _iso(now - timedelta(seconds=1)))
        write_jsonl(minute_dir(root, EVENTS_STREAM, now), f"{name}.jsonl", lines)
        run.landed_at[name] = time.time()
        run.files += 1
        run.rows += f.rows
        run.bad += bad
    run.seconds = clock() - began
    return run
