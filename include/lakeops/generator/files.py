"""Landing files are written whole: a reader never sees a half-written file."""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path

from lakeops.landing import utc


def arrival_minutes(start: datetime, minutes: int, per_minute: int) -> list[datetime]:
    """The arrival minutes of a generated run, in UTC; rejects empty runs and naive times."""
    if minutes < 1 or per_minute < 1:
        raise ValueError(f"minutes={minutes} and the per-minute rate {per_minute} must both be at least 1")
    first = utc(start)
    return [first + timedelta(minutes=m) for m in range(minutes)]


def write_jsonl(directory: str, name: str, lines: list[str]) -> Path:
    """Write lines to directory/name via a hidden temporary file and a rename (Spark skips '_' and '.' files)."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / name
    tmp = folder / f".{name}.tmp"
    tmp.write_text("".join(line + "\n" for line in lines))
    os.replace(tmp, final)
    return final
