"""The index held in memory: zonemap files decoded into columns (lakeops.zonemap.columns): the micro
and hourly files of recent commits and the daily master's statistics, least recently used first
out, under a memory bound (zonemap.hot_memory_mb). A file is keyed by its path, size and
modification time, so a rewritten or damaged file is read again; an evicted file (or one larger
than the bound) is simply read from disk on its next use. Sizes are the Arrow buffer sizes."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DEFAULT_HOT_MEMORY_MB = 64


@dataclass(frozen=True)
class HotStats:
    files: int
    bytes: int
    max_bytes: int
    hits: int
    misses: int
    evictions: int


class HotCache:
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._files: OrderedDict[tuple, tuple[Any, int]] = OrderedDict()
        self._bytes = 0
        self._hits = self._misses = self._evictions = 0
        self._lock = threading.Lock()
        self._dependents: list[Callable[[], None]] = []

    def add_dependent(self, clear: Callable[[], None]) -> None:
        """Register a cache built from held files: cleared whenever this one is cleared or resized, so
        nothing outlives the memory bound."""
        self._dependents.append(clear)

    def _clear_dependents(self) -> None:
        for clear in self._dependents:
            clear()

    def get(self, key: tuple) -> Any | None:
        with self._lock:
            found = self._files.get(key)
            if found is None:
                self._misses += 1
                return None
            self._files.move_to_end(key)
            self._hits += 1
            return found[0]

    def put(self, key: tuple, entries: Any, size: int) -> None:
        with self._lock:
            if key in self._files or size > self.max_bytes:
                return
            self._files[key] = (entries, size)
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, (_, freed) = self._files.popitem(last=False)
                self._bytes -= freed
                self._evictions += 1

    def resize(self, max_bytes: int) -> None:
        if max_bytes != self.max_bytes:
            self._clear_dependents()
        with self._lock:
            self.max_bytes = max_bytes
            while self._bytes > self.max_bytes and self._files:
                _, (_, freed) = self._files.popitem(last=False)
                self._bytes -= freed
                self._evictions += 1

    def clear(self) -> None:
        """Drop every held file and start the hit, miss and eviction counts again."""
        self._clear_dependents()
        with self._lock:
            self._files.clear()
            self._bytes = 0
            self._hits = self._misses = self._evictions = 0

    def stats(self) -> HotStats:
        with self._lock:
            return HotStats(len(self._files), self._bytes, self.max_bytes, self._hits, self._misses, self._evictions)


HOT = HotCache(DEFAULT_HOT_MEMORY_MB * 1024 * 1024)


def set_hot_memory(mb: int) -> None:
    """Apply a table's zonemap.hot_memory_mb to this process's hot cache."""
    HOT.resize(mb * 1024 * 1024)


def hot_stats() -> HotStats:
    return HOT.stats()
