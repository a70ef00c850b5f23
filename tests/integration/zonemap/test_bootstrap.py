"""build_index: the first zonemap index of a table lakeops never wrote to (created and appended by
pyiceberg, no micro zonemaps), built from its manifests in one call; a table with an index is left alone."""

from __future__ import annotations

import pyarrow as pa
import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from lakeops.catalog import load_catalog
from lakeops.exceptions import ConfigError
from lakeops.zonemap.bootstrap import build_index, has_index
from lakeops.zonemap.live import live_files
from lakeops.zonemap.micro import write_micro_zonemap
from lakeops.zonemap.store import read_files
from tests.conftest import make_test_config

TABLE = "lake.raw.accounts"


def _table(tmp_path, zonemap: dict | None):
    config = make_test_config(tmp_path, {TABLE: {"zonemap": zonemap} if zonemap else {}})
    catalog = load_catalog(config.catalog)
    catalog.create_namespace_if_not_exists("lake")
    catalog.create_namespace_if_not_exists("lake.raw")
    table = catalog.create_table(TABLE, Schema(NestedField(1, "id", LongType(), required=False),
                                               NestedField(2, "region", StringType(), required=False)))
    for first in (0, 100, 200):
        table.append(pa.table({"id": pa.array(range(first, first + 100), pa.int64()),
                               "region": pa.array([f"r{first // 100}"] * 100)}))
    return config.table(TABLE), catalog.load_table(TABLE)


def test_a_table_without_an_index_gets_one_entry_per_live_file(tmp_path):
    spec, table = _table(tmp_path, {"columns": ["id", "region"]})
    assert not has_index(table)
    result = build_index(table, spec)
    assert (result.status, result.level, result.entries) == ("published", "daily", 3)
    assert (result.drift.live_files, result.drift.covered, result.drift.added) == (3, 0, 3)
    entries, unreadable = read_files([result.path])
    assert not unreadable
    assert {e.file_path for e in entries} == {f.path for f in live_files(table)}
    bounds = sorted((e.columns[1].lower, e.columns[1].upper, e.columns[2].lower) for e in entries)
    assert bounds == [(0, 99, "r0"), (100, 199, "r1"), (200, 299, "r2")]

    again = build_index(table, spec)
    assert (again.status, again.path, again.entries) == ("exists", result.path, 3)


def test_a_table_with_micro_zonemaps_is_left_to_its_consolidations(tmp_path):
    spec, table = _table(tmp_path, {"columns": ["id"]})
    write_micro_zonemap(table, spec, table.current_snapshot().snapshot_id)
    result = build_index(table, spec)
    assert (result.status, result.path) == ("exists", None)


def test_a_table_without_zonemap_columns_is_refused(tmp_path):
    spec, table = _table(tmp_path, None)
    with pytest.raises(ConfigError, match=f"table {TABLE} has no zonemap columns"):
        build_index(table, spec)
