"""The zonemap benchmark's core at tiny sizes: the master-in-every-commit baseline stays whole under
concurrent writers, and every read method returns the oracle's rows. Timings are measured by the
benchmark, never asserted here."""

from __future__ import annotations

from datetime import UTC, datetime

import pyarrow.parquet as pq
import pytest

from benchmarks.zonemap import NOW, SMALL
from benchmarks.zonemap_env import NO_ZONEMAP, ZONEMAP, bench_config, events_table, with_catalog
from benchmarks.zonemap_ingest import VARIANTS, run_ingest_rounds
from benchmarks.zonemap_master import MASTER_PROPERTY
from benchmarks.zonemap_reads import METHODS, index_memory, run_reads
from benchmarks.zonemap_table import build_small_file_table
from lakeops.catalog import load_catalog
from lakeops.generator import generate_events
from lakeops.spark.ingest_events import ensure_tables

pytestmark = pytest.mark.spark

START = datetime(2026, 11, 23, 0, 0, tzinfo=UTC)


def test_two_concurrent_writers_each_land_their_entries_in_the_master(spark, tmp_path):
    master = next(v for v in VARIANTS if v.master and not v.seeded)
    config = bench_config(tmp_path, {master.table: events_table(ZONEMAP)})
    with_catalog(spark, config)
    generate_events(config.landing_root, START, 2, 40, seed=3, users=200)

    rounds = run_ingest_rounds(spark, config, START, rounds=1, writers=2, batches_per_writer=1, batch_minutes=1,
                               seed=None, variants=(master,), warm_up=False)

    table = load_catalog(config.catalog).load_table(config.identifier(master.table))
    live = {t.file.file_path for t in table.scan().plan_files()}
    with table.io.new_input(table.properties[MASTER_PROPERTY]).open() as stream:
        entries = pq.read_table(stream).column("file_path").to_pylist()
    assert len(rounds) == 1 and rounds[0].batches == 2
    assert rounds[0].rows == table.scan().to_arrow().num_rows > 0
    assert sorted(entries) == sorted(live), "the commit lock keeps both writers' entries in the master"


def test_every_read_method_returns_the_oracle_rows_and_reads_no_fewer_files(spark, tmp_path):
    config = bench_config(tmp_path, {SMALL: events_table(ZONEMAP), "events_none": events_table(NO_ZONEMAP)})
    with_catalog(spark, config)
    catalog = load_catalog(config.catalog)
    ensure_tables(spark, catalog, config, SMALL)
    table = catalog.load_table(config.identifier(SMALL))
    built = build_small_file_table(table, config.table(SMALL), files=56, rows_per_file=40, days=14, end=NOW,
                                   hot_hours=24, commit_hours=24)
    table = catalog.load_table(config.identifier(SMALL))

    measures, queries = run_reads(spark, config.qualified(SMALL), table, NOW, repetitions=1)

    assert built.files == 56 and len(queries) == 6 and len(measures) == 6 * len(METHODS)
    for query in queries:
        found = {m.method: m for m in measures if (m.query, m.range) == (query.name, query.range)}
        assert len({m.rows for m in found.values()}) == 1
        assert all(found["oracle"].files <= m.files <= m.live_files == 56 for m in found.values())
    memory = index_memory(table)
    assert memory.master_entries > 0 and memory.hot_entries > 0
    assert memory.master_entries + memory.hot_entries == 56
