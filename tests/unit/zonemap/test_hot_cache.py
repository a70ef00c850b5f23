"""The hot cache keeps the most recently used files under its byte bound."""

from __future__ import annotations

from lakeops.zonemap.entry import ZonemapEntry
from lakeops.zonemap.hot import HotCache


def entries(name):
    return [ZonemapEntry(name, 1, 1, 1)]


def test_least_recently_used_files_leave_first_and_the_bound_holds():
    cache = HotCache(max_bytes=300)
    for name in ("a", "b", "c"):
        cache.put((name,), entries(name), 100)
    assert cache.get(("a",))[0].file_path == "a"  # a is now the most recent
    cache.put(("d",), entries("d"), 100)
    assert cache.get(("b",)) is None and cache.get(("a",)) is not None
    stats = cache.stats()
    assert (stats.files, stats.bytes, stats.evictions) == (3, 300, 1)
    cache.resize(150)
    assert cache.stats().bytes <= 150 and cache.stats().files == 1
    cache.put(("huge",), entries("huge"), 1000)  # larger than the bound: never held
    assert cache.get(("huge",)) is None
