"""The zonemaps benchmark's core at tiny sizes: every read method returns the oracle's rows and reads
no fewer files than it, and the index splits the files between the hot micro zonemaps and the daily
master. Timings are measured by the benchmark, never asserted here."""

from __future__ import annotations

import pytest

from benchmarks.common import bench_config, demo_table, with_catalog
from benchmarks.zonemaps import FULL, NOW, TABLE, ZONEMAP, Report, render
from benchmarks.zonemaps.reads import BASELINE, METHODS, build_baseline, index_memory, run_reads
from benchmarks.zonemaps.table import build_small_file_table
from lakeops.catalog import load_catalog
from lakeops.spark.ingest_events import ensure_tables

pytestmark = pytest.mark.spark


def test_every_read_method_returns_the_oracle_rows_and_reads_no_fewer_files(spark, tmp_path):
    config = bench_config(tmp_path, {TABLE: demo_table("events", zonemap=ZONEMAP)})
    with_catalog(spark, config)
    catalog = load_catalog(config.catalog)
    ensure_tables(spark, catalog, config, TABLE)
    table = catalog.load_table(config.identifier(TABLE))
    built = build_small_file_table(table, config.table(TABLE), files=56, rows_per_file=40, days=14, end=NOW,
                                   hot_hours=24, commit_hours=24)
    table = catalog.load_table(config.identifier(TABLE))
    build_baseline(spark, config.qualified(TABLE))

    measures, queries = run_reads(spark, config.qualified(TABLE), table, NOW, repetitions=1)

    assert built.files == 56 and len(queries) == 6 and len(measures) == 6 * len(METHODS)
    for query in queries:
        found = {m.method: m for m in measures if (m.query, m.range) == (query.name, query.range)}
        assert len({m.rows for m in found.values()}) == 1
        # The baseline is a copy written by Spark (fewer, larger files): its files are not the table's.
        assert all(found["oracle"].files <= m.files <= m.live_files == 56 for k, m in found.items() if k != BASELINE)
    memory = index_memory(table)
    assert memory.master_entries > 0 and memory.hot_entries > 0
    assert memory.master_entries + memory.hot_entries == 56

    text = render(Report(FULL, built, measures, memory, 60.0))
    assert text.count("\n| one user_id, 2 hours |") == 2 * len(METHODS), "a row per range and method"
    assert f"{memory.master_entries:,} entries" in text
