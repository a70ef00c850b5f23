"""lakeops.zonemap.index.load_many: the zonemap files a cold lookup meets are read side by side and
decoded together, yet each gives exactly what load_columns gives it alone, and is held as load_columns
holds it; an unreadable file costs only itself, a file gone reads as empty. With the Bloom filters kept
as stored, those decoded later for any entries equal the ones decoded with the file."""

from __future__ import annotations

import numpy as np
import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import DoubleType, LongType, NestedField, StringType

from lakeops.zonemap.bloom import BloomFilter
from lakeops.zonemap.columns import ColumnarIndex, blooms_of, concat
from lakeops.zonemap.entry import ColumnStats, ZonemapEntry
from lakeops.zonemap.hot import HOT
from lakeops.zonemap.index import STORED, load_columns, load_many
from lakeops.zonemap.store import publish, to_arrow, types_for

SCHEMA = Schema(NestedField(1, "user_id", LongType(), required=False), NestedField(2, "country", StringType(), required=False),
                NestedField(3, "amount", DoubleType(), required=False))
TYPES = types_for(SCHEMA)


@pytest.fixture(autouse=True)
def _empty_cache():
    HOT.clear()
    yield
    HOT.clear()


def _micro(tmp_path, name: str, first: int, count: int, drop: tuple[str, ...] = ()) -> str:
    """A micro zonemap of `count` files (f{first}...), user_id Bloom filters on every other entry,
    amount bounds missing on the last; drop: columns an older writer did not write."""
    entries = []
    for n in range(first, first + count):
        columns = {1: ColumnStats(n * 10, n * 10 + 9, 0), 2: ColumnStats("AR", f"U{n}", n % 2)}
        if n < first + count - 1:
            columns[3] = ColumnStats(float(n), n + 0.5, 0)
        blooms = {1: BloomFilter.build(range(n * 10, n * 10 + 10), 0.01)} if n % 2 == 0 else {}
        entries.append(ZonemapEntry(f"s3://b/t/data/f{n:03d}.parquet", 7, 100 + n, 4096 + n, f"{n:05d}", columns, blooms))
    return publish(str(tmp_path / f"{name}.parquet"), to_arrow(entries, TYPES).drop_columns(list(drop)))


def _same(a: ColumnarIndex, b: ColumnarIndex) -> None:
    assert a.paths.equals(b.paths) and a.partition.equals(b.partition)
    assert np.array_equal(a.record_count, b.record_count) and np.array_equal(a.file_size, b.file_size)
    assert a.stats.keys() == b.stats.keys() and a.blooms.keys() == b.blooms.keys()
    for field_id, s in a.stats.items():
        other = b.stats[field_id]
        assert s.lower.equals(other.lower) and s.upper.equals(other.upper) and s.null_count.equals(other.null_count)
    for field_id, f in a.blooms.items():
        assert f.bits.equals(b.blooms[field_id].bits) and np.array_equal(f.hashes, b.blooms[field_id].hashes)


def test_each_file_decodes_as_it_would_alone_and_is_held(tmp_path):
    uris = [_micro(tmp_path, "m1", 0, 3), _micro(tmp_path, "m2", 3, 1), _micro(tmp_path, "m3", 4, 4),
            _micro(tmp_path, "old", 8, 2, drop=("file_size",))]

    together = load_many(uris, TYPES, blooms=True)
    HOT.clear()
    alone = [load_columns(u, TYPES, blooms=True) for u in uris]

    assert [len(x) for x in together if x is not None] == [3, 1, 4, 2]
    for a, b in zip(together, alone, strict=True):
        assert a is not None and b is not None
        _same(a, b)
    assert together[3].file_size.tolist() == [0, 0]  # the older file's sizes, as load_columns reads them
    HOT.clear()
    held = load_many(uris, TYPES, blooms=True)
    assert all(load_columns(u, TYPES, blooms=True) is h for u, h in zip(uris, held, strict=True))


def test_without_blooms_only_the_statistics_are_decoded(tmp_path):
    uris = [_micro(tmp_path, "m1", 0, 3), _micro(tmp_path, "m2", 3, 2)]

    together = load_many(uris, TYPES, blooms=False)

    assert all(x is not None and not x.blooms and set(x.stats) == {1, 2, 3} for x in together)
    HOT.clear()
    for a, u in zip(together, uris, strict=True):
        b = load_columns(u, TYPES, blooms=False)
        assert a is not None and b is not None
        _same(a, b)


def test_filters_kept_as_stored_decode_for_any_entries_as_with_the_file(tmp_path):
    uris = [_micro(tmp_path, "m1", 0, 3), _micro(tmp_path, "none", 3, 2, drop=("blooms",)), _micro(tmp_path, "m3", 5, 4)]

    stored = load_many(uris, TYPES, blooms=STORED)
    HOT.clear()
    decoded = [load_columns(u, TYPES, blooms=True) for u in uris]

    assert all(s is not None and not s.blooms for s in stored)
    assert [s.stored_blooms is None for s in stored if s is not None] == [False, True, False]
    for s, d in zip(stored, decoded, strict=True):
        assert s is not None and d is not None
        _same(s, ColumnarIndex(d.paths, d.record_count, d.file_size, d.partition, d.stats))
    # Entries picked across the files, out of order: f007, f000, f003 (no filters stored), f002, f005.
    part, local = np.array([2, 0, 1, 0, 2]), np.array([2, 0, 0, 2, 0])
    got = blooms_of([s.stored_blooms for s in stored if s is not None], part, local)
    whole = concat([d for d in decoded if d is not None])
    want = whole.take(np.array([5 + 2, 0, 3, 2, 5]))
    assert set(got) == {1}
    assert got[1].bits.equals(want.blooms[1].bits) and np.array_equal(got[1].hashes, want.blooms[1].hashes)
    assert got[1].bits.is_valid().to_pylist() == [False, True, False, True, False]  # f007, f005: odd, none built
    assert blooms_of([None, None], np.array([0, 1]), np.array([0, 0])) == {}


def test_an_unreadable_file_is_none_a_gone_one_empty_and_the_others_whole(tmp_path, caplog):
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 not a parquet file")
    uris = [_micro(tmp_path, "m1", 0, 3), str(broken), str(tmp_path / "gone.parquet"), _micro(tmp_path, "m2", 3, 2)]

    found = load_many(uris, TYPES, blooms=True)

    assert found[1] is None and "broken.parquet is unreadable" in caplog.text
    assert found[2] is not None and len(found[2]) == 0
    assert [len(found[0]), len(found[3])] == [3, 2]
    HOT.clear()
    _same(found[3], load_columns(uris[3], TYPES, blooms=True))


def test_a_forked_process_reads_with_readers_of_its_own(tmp_path):
    """The readers are started once per process: a child forked after the parent started them (an Airflow task
    runner forks) would otherwise queue its reads to threads it does not have, and wait forever."""
    import os
    import time

    first = [_micro(tmp_path, "p1", 0, 2), _micro(tmp_path, "p2", 2, 2)]
    assert all(load_many(first, TYPES, blooms=True))  # the parent's readers are running
    second = [_micro(tmp_path, "c1", 4, 2), _micro(tmp_path, "c2", 6, 3)]
    child = os.fork()
    if child == 0:  # the child: exit 0 only if its reads complete with the right entries
        code = 1
        try:
            HOT.clear()
            found = load_many(second, TYPES, blooms=True)
            code = 0 if [len(f) if f is not None else -1 for f in found] == [2, 3] else 3
        finally:
            os._exit(code)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(child, 9)
    os.waitpid(child, 0)
    pytest.fail("the forked child's load_many did not finish in 30 s: it waited on its parent's readers")
