"""The ingest-throughput benchmark's measuring parts on tiny inputs (no Spark): the progress reader on a real
pyiceberg table, freshness from landing times and committed rows, and the time split read from a job log.
Timings are measured by the benchmark, never asserted here."""

from __future__ import annotations

import pyarrow as pa

from benchmarks.ingest_throughput import (
    BATCH,
    FULL,
    QUICK,
    TARGET,
    BatchMeasured,
    Measured,
    Progress,
    _freshness,
    _phases,
    batch_report,
    median_run,
    meets_goal,
    pool_good,
    steady_rate,
)
from lakeops.catalog import load_catalog
from lakeops.generator.paced import EventPool, PacedRun, pace


def test_scenarios_target_the_seeds_rate_for_ten_minutes_of_backlog_and_of_live_arrival_in_both_commit_modes():
    assert [(s.label, s.rows_per_second, s.seconds) for s in FULL] == [
        ("backlog, staged", TARGET, 600), ("live, staged", TARGET, 600),
        ("backlog, direct", TARGET, 600), ("live, direct", TARGET, 600)]
    assert TARGET == 43_000 and all(s.seconds == 20 for s in QUICK)


def test_progress_records_committed_rows_at_each_new_snapshot(lakeops_config):
    progress = Progress(lakeops_config)
    assert progress.poll() == 0  # no table yet
    catalog = load_catalog(lakeops_config.catalog)
    catalog.create_namespace_if_not_exists("lakeops")
    table = catalog.create_table("lakeops.events", pa.schema([pa.field("event_id", pa.string())]))
    table.append(pa.table({"event_id": ["a", "b"]}))
    assert progress.poll() == 2 and progress.poll() == 2
    table.append(pa.table({"event_id": ["c"]}))
    assert progress.poll() == 3
    assert [rows for _, rows in progress.seen] == [2, 3]


def test_a_file_is_fresh_once_the_committed_rows_cover_it():
    pool = EventPool(size=8, bad_fraction=0.0)
    schedule = pace(10, 5, 1)
    run = PacedRun(files=2, landed_at={"l-000000": 100.0, "l-000001": 101.0})
    assert pool_good(pool, 5) == 5
    seen = [(102.0, 7), (104.5, 10)]
    assert _freshness(run, schedule, pool, 0, seen) == [2.0, 3.5]


def test_the_time_split_sums_the_micro_batches_after_the_warm_up():
    log = "\n".join([
        "x micro-batch 0 committed: 1 files, 99 rows, 1 quarantined, snapshot 1 (9.0 s) phases parse=5.00s write=1.00s",
        "x micro-batch 1 committed: 2 files, 9 rows, 0 quarantined, snapshot 2 (2.0 s) phases parse=1.50s write=0.25s",
        "x micro-batch 2 committed: 2 files, 9 rows, 0 quarantined, snapshot 3 (2.0 s) phases parse=0.50s zonemap=0.10s",
    ])
    assert _phases(log, warm_up=True) == ({"parse": 2.0, "write": 0.25, "zonemap": 0.1}, 2)
    assert _phases(log, warm_up=False)[1] == 3


def test_the_steady_rate_leaves_out_the_rows_of_the_first_commit():
    assert steady_rate([(10.0, 100), (20.0, 600), (30.0, 1100)]) == 50.0
    assert steady_rate([(10.0, 100)]) == 0.0 and steady_rate([]) == 0.0


def test_a_live_run_meets_the_rate_only_when_files_landed_at_it_and_each_was_fresh_in_time():
    live = next(s for s in FULL if s.name == "live")
    backlog = next(s for s in FULL if s.name == "backlog")
    kept = Measured(live, generator_rows_per_s=42_964, freshness=[12.0, 28.0])
    assert meets_goal(kept) == "yes (kept pace)"
    assert meets_goal(Measured(live, generator_rows_per_s=42_964, freshness=[12.0, 61.0])) == "no (fell behind)"
    assert meets_goal(Measured(live, generator_rows_per_s=30_000, freshness=[12.0])) == "no (fell behind)"
    assert meets_goal(Measured(live, generator_rows_per_s=42_964, freshness=[12.0], drained=False)) == "no (not drained)"
    assert meets_goal(Measured(backlog, rows_per_s=43_500)) == "yes"
    assert meets_goal(Measured(backlog, rows_per_s=42_900)) == "no"


def test_the_batch_report_splits_the_fixed_cost_into_the_jobs_phases_and_the_start_up():
    b = BatchMeasured(BATCH, first_s=33.0, fixed_s=20.0, fixed_cpu_s=30.0, fixed_phases={"parse": 2.0, "commit": 1.5},
                      fixed_without_archive_s=80.0, fixed_without_archive_cpu_s=90.0,
                      rows=860_000, seconds=40.0, cpu_s=50.0, phases={"parse": 15.0, "write": 5.0})
    text = batch_report(b)
    assert "| 20.0 s (parse 2.0 s, commit 1.5 s, start-up and the rest 16.5 s) | 30 |" in text
    assert "| 21,500 | 43,000 |" in text  # 860,000 rows in 40 s; past the 20 s fixed cost: 43,000 rows/s
    # 12,900,000 rows of a 5-minute interval at 43,000 rows/s past the fixed cost: 300 s plus the fixed cost
    assert "| with the class archive | 20.0 s" in text and "| 30 | 40,312 |" in text  # 12.9 M / 320 s
    assert "| without the class archive | 80.0 s | 90 | 33,947 |" in text  # 12.9 M / 380 s
    assert "(33 s, once per table)" in text


def test_the_median_run_is_the_middle_one_by_wall_time():
    runs = [(30.0, 50.0, {"parse": 3.0}), (25.0, 45.0, {"parse": 2.0}), (40.0, 60.0, {"parse": 4.0})]
    assert median_run(runs) == (30.0, 50.0, {"parse": 3.0})
    assert median_run(runs[:2]) == (25.0, 45.0, {"parse": 2.0})
    assert median_run([]) == (0.0, 0.0, {})
