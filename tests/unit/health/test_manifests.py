"""The manifest cache on real pyiceberg tables: a table evaluated again reads only its new
manifests, with the same figures as a cold read; the cache stays within its bound."""

from __future__ import annotations

from types import SimpleNamespace

import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField

from lakeops.health import manifests
from lakeops.health.compute import compute_health
from lakeops.health.manifests import ManifestCache, live_files

SCHEMA = Schema(NestedField(1, "id", LongType(), required=False))


@pytest.fixture()
def table(tmp_path):
    catalog = SqlCatalog("t", uri=f"sqlite:///{tmp_path}/c.db", warehouse=(tmp_path / "wh").as_uri())
    catalog.create_namespace("ns")
    created = catalog.create_table("ns.events", SCHEMA)
    for i in range(3):
        created.append(pa.table({"id": pa.array(range(i * 10, i * 10 + 10), pa.int64())}))
    return created


@pytest.fixture()
def reads(monkeypatch):
    """Paths of the manifests read from storage."""
    seen: list[str] = []
    read = manifests.read_live_files

    def counting(io, manifest):
        seen.append(manifest.manifest_path)
        return read(io, manifest)

    monkeypatch.setattr(manifests, "read_live_files", counting)
    return seen


def _manifests(table):
    return list(table.current_snapshot().manifests(table.io))


def test_a_table_evaluated_again_reads_only_its_new_manifests(table, reads):
    cache = ManifestCache()
    first = live_files(table.io, _manifests(table), cache)
    assert len(reads) == 3 and len(first) == 3 and cache.files == 3

    assert live_files(table.io, _manifests(table), cache) == first
    assert len(reads) == 3  # nothing read again

    table.append(pa.table({"id": pa.array([100], pa.int64())}))
    after = live_files(table.io, _manifests(table), cache)
    assert len(reads) == 4 and len(after) == 4
    assert len({f.path for f in after} - {f.path for f in first}) == 1


def test_cached_figures_equal_a_cold_read(table):
    manifests.MANIFESTS.clear()
    cold = compute_health(table, now_ms=1)
    warm = compute_health(table, now_ms=1)
    assert manifests.MANIFESTS.files == cold.data_files == 3
    assert warm == cold


def test_the_cache_keeps_at_most_its_bound_least_recently_used_out_first():
    cache = ManifestCache(max_files=4)
    a, b, c = (SimpleNamespace(manifest_path=p, sequence_number=1, added_snapshot_id=1) for p in "abc")
    cache.put(a, ("a1", "a2"))
    cache.put(b, ("b1",))
    assert cache.get(a) == ("a1", "a2")  # a is now the most recently used, b the least
    cache.put(c, ("c1", "c2"))
    assert cache.get(b) is None and cache.get(a) == ("a1", "a2") and cache.get(c) == ("c1", "c2") and cache.files == 4
    cache.put(SimpleNamespace(manifest_path="huge", sequence_number=1, added_snapshot_id=1), ("x",) * 5)
    assert cache.files == 4  # a manifest over the bound is never kept


def test_a_manifest_listed_with_another_sequence_number_is_another_entry():
    cache = ManifestCache()
    cache.put(SimpleNamespace(manifest_path="m", sequence_number=1, added_snapshot_id=7), ("old",))
    assert cache.get(SimpleNamespace(manifest_path="m", sequence_number=2, added_snapshot_id=7)) is None
