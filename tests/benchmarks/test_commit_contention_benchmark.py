"""The commit-contention benchmark's core at tiny sizes: retries are counted from Iceberg's log line,
medians and ratios are taken per variant, and the commit-path rounds commit every staged file once
per variant. Timings are measured by the benchmark, never asserted here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from benchmarks.commit_contention_commits import SOURCE, commit_round, expected_rows, stage_units, table_name
from benchmarks.commit_contention_core import RetryLog, Round, Variant, summarize
from benchmarks.zonemap_env import NO_ZONEMAP, bench_config, events_table, with_catalog
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


def test_summaries_take_medians_per_variant_and_staged_over_direct_ratios():
    rounds = [Round("direct", 4, 1, 900, 10.0, 16, 3, 1, 1000), Round("direct", 4, 2, 1000, 5.0, 16, 2, 0, 1000),
              Round("direct", 4, 3, 1000, 4.0, 16, 0, 0, 1002), Round("staged", 4, 1, 1000, 2.0, 2, 0, 0, 1000),
              Round("staged", 4, 2, 1000, 1.0, 2, 0, 0, 1000), Round("staged", 4, 3, 1002, 4.0, 2, 0, 0, 1002)]
    direct, staged = summarize(rounds)
    assert (direct.mode, direct.rounds, direct.rows, direct.landed, direct.seconds, direct.retries, direct.failed) == \
        ("direct", 3, 1000, 1000, 5.0, 5, 1)
    assert direct.rows_per_s == 200.0 and direct.speedup is None
    assert (staged.rows_per_s, staged.commits) == (500.0, 2)
    assert staged.speedup == pytest.approx(2.5)


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
