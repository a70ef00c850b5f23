"""Small text helpers shared by the summaries: sizes, durations, times and aligned columns."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")


def size(value: float | int | None) -> str:
    """Bytes in binary units: 0 B, 1.5 KiB, 128.0 MiB."""
    if value is None:
        return "-"
    amount = float(value)
    for unit in _UNITS:
        if abs(amount) < 1024 or unit == _UNITS[-1]:
            return f"{int(amount)} {unit}" if unit == "B" else f"{amount:.1f} {unit}"
        amount /= 1024
    raise AssertionError("unreachable")


def duration(seconds: float | None) -> str:
    """A rounded span: 45 s, 12 min, 3.5 h, 2.0 d."""
    if seconds is None:
        return "-"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} d"


def moment(ms: int | None) -> str | None:
    """Epoch milliseconds as ISO-8601 UTC (seconds), None kept."""
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="seconds")


def number(value: Any) -> str:
    """A value for a person: floats to at most 4 decimals (0.125, 1.4286, 12), lists in brackets, None as '-'."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".")
    if isinstance(value, list | tuple):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


def columns(rows: Sequence[Sequence[str]], indent: str = "", gap: int = 2) -> list[str]:
    """Rows of cells aligned in columns (the last column is not padded)."""
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows if i < len(row)) for i in range(max(len(r) for r in rows))]
    out = []
    for row in rows:
        cells = [cell.ljust(widths[i]) if i < len(row) - 1 else cell for i, cell in enumerate(row)]
        out.append((indent + (" " * gap).join(cells)).rstrip())
    return out
