"""Where a batch's time goes: wall seconds per named phase (parse, quarantine, write, commit, zonemap),
carried in the batch's result and logged, so a profile needs no profiler."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class PhaseTimer:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Add the wall time of the block to phase `name` (also when it raises)."""
        began = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - began


def add_phases(total: dict[str, float], more: dict[str, float]) -> dict[str, float]:
    """The per-phase sum of two splits."""
    return {name: total.get(name, 0.0) + more.get(name, 0.0) for name in {**total, **more}}


def render_phases(seconds: dict[str, float]) -> str:
    """'parse=1.20s write=0.80s ...' in the order the phases ran: the form the job logs and the benchmark reads."""
    return " ".join(f"{name}={value:.2f}s" for name, value in seconds.items())


def parse_phases(text: str) -> dict[str, float]:
    """render_phases read back."""
    out = {}
    for part in text.split():
        name, _, value = part.partition("=")
        out[name] = float(value.rstrip("s"))
    return out
