"""Iceberg truncates string bounds to 16 characters; zonemaps keep the exact min and max, read from
the data when the manifest bound is truncated, so long strings with a shared prefix still prune."""

from __future__ import annotations

import pytest
from pyiceberg import expressions as E

from lakeops.zonemap.build import added_data_files
from lakeops.zonemap.candidates import candidate_files
from lakeops.zonemap.consolidate import reconcile
from lakeops.zonemap.index import load_index
from tests.integration.zonemap.conftest import event_rows, make_events_table

pytestmark = pytest.mark.spark
PREFIX = "https://shop.example.com/products/"


def test_exact_string_bounds_prune_where_truncated_ones_cannot(spark, tmp_path):
    events = make_events_table(spark, tmp_path, {"columns": ["event_time", "user_id", "page"], "bloom_columns": []})
    low = [dict(r, page=f"{PREFIX}{i % 10:04d}") for i, r in enumerate(event_rows(50, 1))]
    high = [dict(r, page=f"{PREFIX}{20 + i % 10:04d}") for i, r in enumerate(event_rows(50, 2))]
    first, _second = events.append(low), events.append(high, zonemap=False)
    table = events.load()
    page_id = table.schema().find_field("page").field_id
    manifest_lower = added_data_files(table, first)[0].lower_bounds[page_id].decode()
    assert len(manifest_lower) == 16 and PREFIX.startswith(manifest_lower), "Iceberg truncated the bound"

    reconcile(table, events.spec)  # the second file's entry comes from reconcile, the first from its micro zonemap
    index, _ = load_index(events.load())
    bounds = sorted((e.columns[page_id].lower, e.columns[page_id].upper) for e in index.values())
    assert bounds == [(f"{PREFIX}0000", f"{PREFIX}0009"), (f"{PREFIX}0020", f"{PREFIX}0029")]

    for value, expected in ((f"{PREFIX}0025", 1), (f"{PREFIX}0015", 0), (f"{PREFIX}0009", 1)):
        predicate = E.EqualTo("page", value)
        assert len(candidate_files(events.load(), predicate).files) == expected
        assert len(events.ids(f"page = '{value}'")) > 0 or expected == 0
    assert len(candidate_files(events.load(), E.GreaterThan("page", f"{PREFIX}0010")).files) == 1
    assert len(candidate_files(events.load(), E.StartsWith("page", f"{PREFIX}002")).files) == 1
