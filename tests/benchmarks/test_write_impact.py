"""The write-impact benchmark's parts at tiny sizes: cells and data per commit interval, per-writer files of one
second each, medians and impacts taken per cell, the master-in-every-commit one pass keeping every concurrent
writer's entries with its files in one commit, and a whole measurement committing every good row once per variant.
Timings are measured by the benchmark, never asserted here."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict

import pyarrow.parquet as pq
import pytest

from benchmarks.common import bench_config, with_catalog, writer_session
from benchmarks.ingest_and_commits.master_baseline import MASTER_PROPERTY, commit_one_pass_with_master
from benchmarks.ingest_throughput import pool_good
from benchmarks.write_impact import VARIANTS, Cell, Run, Sizes, events_table, land, measure, runs_from_json, summarize, table_name
from lakeops.batches import BATCH_ID_PROPERTY
from lakeops.catalog import load_catalog
from lakeops.generator.paced import EventPool
from lakeops.ingest.stream import micro_batch_id
from lakeops.spark.ingest_events import ensure_tables, event_columns, landed_lines, parsed_lines


def test_each_cell_ingests_at_least_two_commit_intervals_of_data():
    sizes = Sizes(intervals=(1, 2, 5, 15), writers=(1, 4), min_seconds=10)
    assert [sizes.seconds(i) for i in sizes.intervals] == [10, 10, 10, 30]
    assert sizes.cells()[:2] == [Cell(1, 1), Cell(2, 1)] and len(sizes.cells()) == 8
    names = {table_name(v, c, r) for c in sizes.cells() for r in range(4) for v in VARIANTS}
    assert len(names) == 8 * 4 * 3


def test_every_writer_lands_one_file_a_second_holding_its_share_of_the_rate(tmp_path):
    files = land(tmp_path, writers=2, seconds=3, rate=40)
    assert [len(mine) for mine in files] == [3, 3]
    assert all(sum(1 for _ in open(f)) == 20 for mine in files for f in mine)
    assert len({f for mine in files for f in mine}) == 6


def test_summaries_take_medians_per_cell_against_no_zonemap():
    cell = Cell(1, 4)

    def run(variant: str, r: int, seconds: float) -> Run:
        master = variant == VARIANTS[2]
        return Run(variant, cell, r, 1000, 10, seconds, 0.5 if variant == VARIANTS[1] else 0.0, 1.0 * master, 2.0 * master)

    runs = [run(VARIANTS[0], 1, 1.0), run(VARIANTS[0], 2, 2.0), run(VARIANTS[0], 3, 1.0),
            run(VARIANTS[1], 1, 1.0), run(VARIANTS[1], 2, 1.25), run(VARIANTS[1], 3, 1.25),
            run(VARIANTS[2], 1, 4.0), run(VARIANTS[2], 2, 2.0), run(VARIANTS[2], 3, 2.0)]
    none, micro, master = summarize(runs)
    assert (none.rows_per_s, none.impact_pct) == (1000.0, 0.0)
    assert (micro.rows_per_s, micro.impact_pct) == (800.0, pytest.approx(-20.0))
    assert (master.rows_per_s, master.impact_pct) == (500.0, pytest.approx(-50.0))
    assert micro.zonemap_per_commit_s == pytest.approx(0.05)
    assert (master.lock_wait_per_commit_s, master.lock_held_per_commit_s) == (pytest.approx(0.1), pytest.approx(0.2))
    assert (master.low, master.high) == (250.0, 500.0)
    # own work over writer time: micro 3 x 0.5 s of 4 writers x 3.5 s; master 3 x 3 s of 4 x 8 s
    assert micro.overhead_pct == pytest.approx(1.5 / 14 * 100) and master.overhead_pct == pytest.approx(9 / 32 * 100)
    again = runs_from_json(json.loads(json.dumps({"runs": [asdict(r) for r in runs]})))
    assert again == runs


@pytest.mark.spark
def test_two_concurrent_one_pass_writers_each_commit_their_files_with_their_entries_in_the_master(spark, tmp_path):
    name = table_name(VARIANTS[2], Cell(1, 2), 0)
    config = bench_config(tmp_path, {name: events_table(VARIANTS[2])})
    with_catalog(spark, config)
    catalog = load_catalog(config.catalog)
    ensure_tables(spark, catalog, config, name)
    files = land(tmp_path / "landing", writers=2, seconds=1, rate=400)
    columns = event_columns(catalog.load_table(config.identifier(name)))

    def write(writer: int):
        session = writer_session(spark, config)
        parsed = parsed_lines(landed_lines(session, files[writer]), columns, config.table(name).ingest)
        batch_id = micro_batch_id(config.table(name).name, f"writer{writer}", 0)
        return commit_one_pass_with_master(session, catalog, config, name, parsed, batch_id)

    with ThreadPoolExecutor(2) as pool:
        results = [r for r, _waited, _held in pool.map(write, [0, 1])]

    table = catalog.load_table(config.identifier(name))
    live = {t.file.file_path for t in table.scan().plan_files()}
    with table.io.new_input(table.properties[MASTER_PROPERTY]).open() as stream:
        entries = pq.read_table(stream).column("file_path").to_pylist()
    assert sorted(entries) == sorted(live), "the commit lock keeps both writers' entries in the master"
    assert [r.status for r in results] == ["committed", "committed"]
    assert sum(r.rows for r in results) == table.scan().to_arrow().num_rows > 0
    batches = {(s.summary or {}).get(BATCH_ID_PROPERTY) for s in table.snapshots()}
    assert {micro_batch_id(config.table(name).name, f"writer{w}", 0) for w in (0, 1)} <= batches


@pytest.mark.spark
def test_a_measurement_commits_every_good_row_once_per_variant_and_round(spark, tmp_path):
    sizes = Sizes(rate=200, intervals=(1,), writers=(2,), rounds=1, min_seconds=2, seed_entries=5)
    names = {table_name(v, c, r): events_table(v) for c in sizes.cells() for r in range(2) for v in VARIANTS}
    config = bench_config(tmp_path, names)
    with_catalog(spark, config)
    landed = {2: land(tmp_path / "landing", 2, 2, sizes.rate)}

    runs = measure(spark, config, sizes, landed)

    good = 2 * 2 * pool_good(EventPool(), sizes.rate // 2)  # writers x seconds x the good lines of a file
    assert [r.variant for r in runs] == [VARIANTS[1], VARIANTS[2], VARIANTS[0]]  # round 1 of cell 0 rotates by one
    assert {r.rows for r in runs} == {good} and {r.commits for r in runs} == {4}
    assert next(r for r in runs if r.variant == VARIANTS[2]).lock_held_s > 0
