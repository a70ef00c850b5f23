"""The ingest-and-commits benchmark's core at tiny sizes: retries are counted from Iceberg's log line,
medians and ratios are taken per variant, the commit-path rounds commit every staged file once per
variant, the master-in-every-commit baseline stays whole under concurrent writers, and the seeded
master holds distinct entries. Timings are measured by the benchmark, never asserted here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pyarrow.parquet as pq
import pytest

from benchmarks.common import bench_config, with_catalog
from benchmarks.ingest_and_commits import NO_ZONEMAP, ZONEMAP, events_table, goal
from benchmarks.ingest_and_commits.commit_path import SOURCE, commit_round, expected_rows, stage_units, table_name
from benchmarks.ingest_and_commits.master_baseline import MASTER_PROPERTY, synthetic_entries
from benchmarks.ingest_and_commits.writers import RetryLog, Round, Variant, summarize
from benchmarks.ingest_and_commits.zonemap_write import VARIANTS, run_ingest_rounds
from lakeops.catalog import load_catalog
from lakeops.generator import generate_events
from lakeops.spark.ingest_events import ensure_tables

START = datetime(2026, 11, 25, 0, 0, tzinfo=UTC)


def test_retry_log_counts_the_retry_lines_added_since_the_last_read(tmp_path):
    path = tmp_path / "iceberg-retries.log"
    log = RetryLog(path)
    assert log.new_retries() == 0, "no log file yet"
    path.write_text("1 Retrying task after failure: sleepTimeMs=100 Cannot commit t\n2 something else\n")
    assert log.new_retries() == 1
    with open(path, "a") as f:
        f.write("3 Retrying task after failure: sleepTimeMs=200 x\n4 Retrying task after failure: sleepTimeMs=400 y\n")
    assert log.new_retries() == 2 and log.new_retries() == 0


def _rounds() -> list[Round]:
    return [Round("direct", 4, 1, 900, 10.0, 16, 3, 1, 1000), Round("direct", 4, 2, 1000, 5.0, 16, 2, 0, 1000),
            Round("direct", 4, 3, 1000, 4.0, 16, 0, 0, 1002), Round("staged", 4, 1, 1000, 2.0, 2, 0, 0, 1000),
            Round("staged", 4, 2, 1000, 1.0, 2, 0, 0, 1000), Round("staged", 4, 3, 1002, 4.0, 2, 0, 0, 1002)]


def test_summaries_take_medians_per_variant_and_staged_over_direct_ratios():
    direct, staged = summarize(_rounds())
    assert (direct.mode, direct.rounds, direct.rows, direct.landed, direct.seconds, direct.retries, direct.failed) == \
        ("direct", 3, 1000, 1000, 5.0, 5, 1)
    assert direct.rows_per_s == 200.0 and direct.speedup is None
    assert (staged.rows_per_s, staged.commits) == (500.0, 2)
    assert staged.speedup == pytest.approx(2.5)


def test_the_goal_is_missed_below_five_times_the_direct_rows_and_met_above():
    assert goal(summarize(_rounds()), 4).endswith("0 failed, 2.50x: **missed**.")
    fast = [r if r.mode == "direct" else Round(r.mode, r.writers, r.round, r.rows, r.seconds / 4, 2, 0, 0, r.landed)
            for r in _rounds()]
    assert goal(summarize(fast), 4).endswith("0 failed, 10.00x: **met**.")
    assert goal(summarize(_rounds()), 16) == "", "no staged variant at 16 writers"


@pytest.mark.spark
def test_commit_path_rounds_commit_every_staged_file_once_per_variant(spark, tmp_path):
    variants = [Variant("direct", 2), Variant("staged", 2)]
    tables = {SOURCE: events_table(NO_ZONEMAP), **{table_name(v): events_table(NO_ZONEMAP) for v in variants}}
    config = bench_config(tmp_path, tables)
    with_catalog(spark, config)
    catalog = load_catalog(config.catalog)
    for name in config.tables:
        ensure_tables(spark, catalog, config, name)
    generate_events(config.landing_root, START, 4, 30, seed=4, users=100)

    units = stage_units(spark, config, START, START + timedelta(minutes=4), 4)
    direct, staged = (commit_round(config, v, units, batches=2, number=1) for v in variants)

    rows = expected_rows(units)
    assert len(units) == 4 and rows > 0
    assert (direct.rows, direct.commits, direct.failed) == (rows, 4, 0), "two committers, two micro-batches each"
    assert (staged.rows, staged.commits, staged.failed) == (rows, 1, 0), "one commit for all files"
    for v in variants:
        assert load_catalog(config.catalog).load_table(config.identifier(table_name(v))).scan().to_arrow().num_rows == rows


@pytest.mark.spark
def test_two_concurrent_writers_each_land_their_entries_in_the_master(spark, tmp_path):
    master = next(v for v in VARIANTS if v.master and not v.seeded)
    config = bench_config(tmp_path, {master.table: events_table(ZONEMAP)})
    with_catalog(spark, config)
    generate_events(config.landing_root, START, 2, 40, seed=3, users=200)

    rounds = run_ingest_rounds(spark, config, START, rounds=1, writers=2, batches_per_writer=1, batch_minutes=1,
                               seed_entries=0, variants=(master,), warm_up=False)

    table = load_catalog(config.catalog).load_table(config.identifier(master.table))
    live = {t.file.file_path for t in table.scan().plan_files()}
    with table.io.new_input(table.properties[MASTER_PROPERTY]).open() as stream:
        entries = pq.read_table(stream).column("file_path").to_pylist()
    assert len(rounds) == 1 and rounds[0].batches == 2
    assert rounds[0].rows == table.scan().to_arrow().num_rows > 0
    assert sorted(entries) == sorted(live), "the commit lock keeps both writers' entries in the master"


def test_the_seeded_master_holds_distinct_entries_with_bounds_and_a_bloom_filter(tmp_path):
    import pyarrow as pa

    config = bench_config(tmp_path, {"events": events_table(ZONEMAP)})
    catalog = load_catalog(config.catalog)
    catalog.create_namespace_if_not_exists("lakeops")
    table = catalog.create_table("lakeops.events", pa.schema([
        pa.field("event_time", pa.timestamp("us", tz="UTC")), pa.field("user_id", pa.int64()),
        pa.field("country", pa.string()), pa.field("event_type", pa.string())]))

    entries = synthetic_entries(table, ("event_time", "user_id", "country", "event_type"), ("user_id",), 50, rows=20)

    assert entries.num_rows == 50
    assert len(set(entries.column("file_path").to_pylist())) == 50
    first = entries.slice(0, 1).to_pylist()[0]
    assert len(first["columns"]) == 4 and all(c["lower"] is not None and c["upper"] is not None for c in first["columns"])
    assert [b["field_id"] for b in first["blooms"]] == [table.schema().find_field("user_id").field_id]
