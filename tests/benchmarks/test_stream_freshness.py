"""The freshness benchmark's measuring parts: percentiles, and the reader that decides when a landed
file's rows are readable (a real pyiceberg table, no Spark). Timings are measured by the benchmark,
never asserted here."""

from __future__ import annotations

import time

import pyarrow as pa
import pytest

from benchmarks.stream_freshness import Reader, percentile, summary
from lakeops.catalog import load_catalog
from tests.conftest import make_test_config


def test_percentile_is_nearest_rank():
    values = [float(v) for v in range(1, 21)]  # 1..20
    assert (percentile(values, 50), percentile(values, 95), percentile(values, 100)) == (10.0, 19.0, 20.0)
    assert percentile([7.0], 95) == 7.0
    assert summary([3.0, 1.0, 2.0, 10.0]) == {"median": 2.5, "p95": 10.0, "max": 10.0}


def test_a_file_is_readable_once_a_fresh_read_returns_all_its_rows(tmp_path):
    config = make_test_config(tmp_path)
    reader = Reader(config, per_file=3)
    reader.poll()  # no table yet: nothing readable, no error
    assert reader.readable_at == {}

    catalog = load_catalog(config.catalog)
    catalog.create_namespace_if_not_exists("lakeops")
    table = catalog.create_table("lakeops.events", pa.schema([pa.field("event_id", pa.string())]))
    table.append(pa.table({"event_id": ["f00000-0", "f00000-1", "f00000-2", "f00001-0"]}))
    before = time.time()
    reader.poll()

    assert list(reader.readable_at) == ["f00000"], "f00001 has 1 of its 3 rows: not readable yet"
    assert reader.readable_at["f00000"] >= before
    snapshot = table.refresh().current_snapshot()
    assert reader.committed_at["f00000"] == pytest.approx(snapshot.timestamp_ms / 1000)

    table.append(pa.table({"event_id": ["f00001-1", "f00001-2"]}))
    reader.poll()
    assert set(reader.readable_at) == {"f00000", "f00001"}
    assert reader.committed_at["f00001"] >= reader.committed_at["f00000"]
