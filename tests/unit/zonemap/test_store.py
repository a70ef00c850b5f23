"""lakeops.zonemap.store.read_file: the columns asked for that a zonemap file has (an older layout lacks some);
a Parquet file without the columns every zonemap file has is refused, so its readers report it unreadable."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakeops.zonemap.store import read_file


def _write(tmp_path, name: str, data: dict) -> str:
    path = str(tmp_path / f"{name}.parquet")
    pq.write_table(pa.table(data), path)
    return path


def test_columns_an_older_layout_lacks_are_left_out(tmp_path):
    old = _write(tmp_path, "old", {"file_path": ["a", "b"], "record_count": [3, 4], "partition": ["p", "q"]})
    read = read_file(old, ["file_path", "record_count", "file_size", "partition"])
    assert read.column_names == ["file_path", "record_count", "partition"]
    assert read.column("record_count").to_pylist() == [3, 4]
    assert read_file(old).num_rows == 2


@pytest.mark.parametrize("columns", [None, ["file_path"], ["record_count", "partition"]])
def test_a_file_without_the_zonemap_columns_is_refused(tmp_path, columns):
    other = _write(tmp_path, "other", {"id": [1], "partition": ["p"]})
    with pytest.raises(KeyError, match="not a zonemap file"):
        read_file(other, columns)
