"""The daily master read by row group (lakeops.zonemap.groups), on literal data: a selective lookup
reads only the row groups its summary cannot rule out, and keeps the same files as reading the
whole master."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from pyiceberg import expressions as E
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType, TimestamptzType

from lakeops.zonemap.entry import ColumnStats, ZonemapEntry
from lakeops.zonemap.evaluate import may_match_all
from lakeops.zonemap.groups import candidate_groups, count_paths, master_groups, read_groups, write_master
from lakeops.zonemap.hot import HOT
from lakeops.zonemap.index import file_key, load_columns
from lakeops.zonemap.store import publish, to_arrow, types_for

SCHEMA = Schema(NestedField(1, "id", LongType(), required=False), NestedField(2, "ts", TimestamptzType(), required=False),
                NestedField(3, "country", StringType(), required=False))
TYPES = types_for(SCHEMA)
DAY0 = datetime(2026, 11, 1, tzinfo=UTC)
US = 1_000_000


def _us(t: datetime) -> int:
    return int(t.timestamp() * US)


def _entries(unknown_time: tuple[int, ...] = ()) -> list[ZonemapEntry]:
    """Ten files, one day each (f00 on DAY0 ... f09), sorted by partition as a master is; those of
    unknown_time have no time bounds, and f08's country is all null."""
    out = []
    for d in range(10):
        start = DAY0 + timedelta(days=d)
        ts = ColumnStats(None, None, 0) if d in unknown_time else ColumnStats(_us(start), _us(start + timedelta(days=1)) - 1, 0)
        country = ColumnStats(None, None, 5) if d == 8 else ColumnStats("AR", "US", 0)
        out.append(ZonemapEntry(f"f{d:02d}", 1, 5, 100, f"{d:05d}", {1: ColumnStats(d * 10, d * 10 + 9, 0), 2: ts,
                                                                      3: country}, {}))
    return out


@pytest.fixture
def master(tmp_path):
    HOT.clear()
    uri = write_master(str(tmp_path / "master.parquet"), to_arrow(_entries(), TYPES), row_group_size=3)
    yield uri
    HOT.clear()


def _kept(index, predicate) -> list[str]:
    return index.paths.filter(may_match_all(index, predicate, SCHEMA)).to_pylist()


def _whole(uri: str, predicate) -> list[str]:
    whole = load_columns(uri, TYPES, blooms=False)
    assert whole is not None and len(whole) == 10
    return _kept(whole, predicate)


def _by_group(uri: str, predicate) -> tuple[list[str], np.ndarray, int]:
    groups = master_groups(uri, file_key(uri), TYPES)
    assert groups is not None and groups.summary is not None
    which = candidate_groups(groups, predicate, SCHEMA)
    part = read_groups(groups, which, TYPES)
    assert part is not None
    return _kept(part, predicate), which, len(part)


def test_a_selective_time_range_reads_one_of_four_row_groups_and_keeps_what_the_whole_master_keeps(master):
    day4 = DAY0 + timedelta(days=4)
    predicate = E.And(E.GreaterThanOrEqual("ts", (day4 + timedelta(hours=1)).isoformat()),
                      E.LessThan("ts", (day4 + timedelta(hours=3)).isoformat()))
    kept, which, rows_read = _by_group(master, predicate)
    assert which.tolist() == [1]  # rows 3-5 (f03, f04, f05) of groups [0-2], [3-5], [6-8], [9]
    assert rows_read == 3
    assert kept == _whole(master, predicate) == ["f04"]


def test_a_group_with_an_unknown_bound_is_read(tmp_path):
    """f07 has no time bounds: its group (f06-f08) may match any time range."""
    uri = write_master(str(tmp_path / "m.parquet"), to_arrow(_entries(unknown_time=(7,)), TYPES), row_group_size=3)
    day4 = DAY0 + timedelta(days=4)
    predicate = E.And(E.GreaterThanOrEqual("ts", day4.isoformat()), E.LessThan("ts", (day4 + timedelta(hours=1)).isoformat()))
    kept, which, _ = _by_group(uri, predicate)
    assert which.tolist() == [1, 2]
    assert kept == _whole(uri, predicate) == ["f04", "f07"]


@pytest.mark.parametrize("predicate, groups, files", [
    (E.EqualTo("id", 95), [3], ["f09"]),
    (E.In("id", [5, 61]), [0, 2], ["f00", "f06"]),
    (E.GreaterThan("id", 200), [], []),
    (E.IsNull("country"), [2], ["f08"]),
    (E.NotNull("country"), [0, 1, 2, 3], ["f00", "f01", "f02", "f03", "f04", "f05", "f06", "f07", "f09"]),
    (E.Or(E.EqualTo("id", 1), E.EqualTo("country", "ZZ")), [0], ["f00"]),
])
def test_the_row_groups_read_and_the_files_kept(master, predicate, groups, files):
    kept, which, _ = _by_group(master, predicate)
    assert which.tolist() == groups
    assert kept == _whole(master, predicate) == files


def test_an_all_null_group_is_ruled_out_for_a_comparison(tmp_path):
    """A group whose entries are all null in a column matches no comparison on it, and no NOT NULL."""
    entries = [ZonemapEntry(f"g{i}", 1, 5, 100, "", {3: ColumnStats(None, None, 5)}, {}) for i in range(3)] + \
        [ZonemapEntry("g3", 1, 5, 100, "", {3: ColumnStats("DE", "DE", 0)}, {})]
    uri = write_master(str(tmp_path / "m.parquet"), to_arrow(entries, TYPES), row_group_size=3)
    HOT.clear()
    for predicate, expected in ((E.EqualTo("country", "DE"), [1]), (E.NotNull("country"), [1]), (E.IsNull("country"), [0])):
        _, which, _ = _by_group(uri, predicate)
        assert which.tolist() == expected, predicate


def test_removed_paths_are_counted_from_the_groups_that_may_hold_them(master):
    groups = master_groups(master, file_key(master), TYPES)
    assert groups is not None
    assert count_paths(groups, {"f04", "f09", "f99", "a"}) == 2
    assert count_paths(groups, set()) == 0


def test_a_master_written_without_a_summary_is_read_whole(tmp_path):
    uri = publish(str(tmp_path / "old.parquet"), to_arrow(_entries(), TYPES), row_group_size=3)
    groups = master_groups(uri, file_key(uri), TYPES)
    assert groups is not None and groups.summary is None and groups.rows == 10


def test_an_empty_master_has_no_row_group_to_read(tmp_path):
    uri = write_master(str(tmp_path / "empty.parquet"), to_arrow([], TYPES), row_group_size=3)
    HOT.clear()
    groups = master_groups(uri, file_key(uri), TYPES)
    assert groups is not None and groups.summary is not None and groups.rows == 0
    assert candidate_groups(groups, E.EqualTo("id", 1), SCHEMA).tolist() == []
    assert count_paths(groups, {"f00"}) == 0
