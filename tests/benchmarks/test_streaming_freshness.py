"""The streaming-freshness benchmark's measuring parts: its summary of a run's figures, and the reader
that decides when a landed file's rows are readable (a real pyiceberg table, no Spark). Timings are
measured by the benchmark, never asserted here."""

from __future__ import annotations

import time

import pyarrow as pa
import pytest

from benchmarks.streaming_freshness import QUICK, Reader, summary
from lakeops.catalog import load_catalog


def test_summary_is_the_median_the_nearest_rank_p95_and_the_max():
    assert summary([3.0, 1.0, 2.0, 10.0]) == {"median": 2.5, "p95": 10.0, "max": 10.0}
    assert summary([float(v) for v in range(1, 21)]) == {"median": 10.5, "p95": 19.0, "max": 20.0}


def test_the_quick_run_lands_files_for_ninety_seconds_at_the_default_trigger_only():
    assert (QUICK.seconds, QUICK.triggers) == (90, (15,))


def test_a_file_is_readable_once_a_fresh_read_returns_all_its_rows(lakeops_config):
    config = lakeops_config
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
