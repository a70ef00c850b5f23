"""The incremental-ETL benchmark: the bytes a snapshot range appended (a real pyiceberg table), the
medians and ratios from literal costs, the report, the Spark jobs and snapshot-range reads a measurement
counts, and the generated source (deterministic, late sessions earlier, on a real Spark)."""

from __future__ import annotations

from datetime import datetime

import pyarrow as pa
import pytest

from benchmarks.common import ScanCost, bench_config, demo_table, measure_scans
from benchmarks.incremental_etl import QUICK, medians, range_bytes, report


def test_range_bytes_sum_what_the_appends_after_the_start_snapshot_added(tmp_path):
    from lakeops.catalog import load_catalog

    config = bench_config(tmp_path, {"events": demo_table("events")})
    catalog = load_catalog(config.catalog)
    catalog.create_namespace_if_not_exists(config.catalog.namespace)
    table = catalog.create_table(config.identifier("events"), pa.schema([pa.field("n", pa.int64())]))
    table.append(pa.table({"n": [1, 2]}))
    start = table.current_snapshot()
    table.append(pa.table({"n": [3]}))
    table.append(pa.table({"n": [4, 5, 6]}))
    end = table.current_snapshot()
    added = [int(s.summary["added-files-size"]) for s in table.snapshots()[1:]]

    assert range_bytes(table, start.snapshot_id, end.snapshot_id) == (sum(added), 2)
    assert range_bytes(table, end.snapshot_id, end.snapshot_id) == (0, 0)


def test_medians_and_ratios_of_the_medians_and_per_repetition():
    samples = {"incremental": [ScanCost(1.0, 10, 1, 9, 0.5), ScanCost(3.0, 30, 3, 9, 2.5), ScanCost(2.0, 20, 2, 9, 1.25)],
               "full": [ScanCost(10.0, 1000, 100, 4), ScanCost(60.0, 1000, 100, 4), ScanCost(40.0, 1000, 100, 4)]}
    med, ratio, paired = medians(samples)
    assert med["incremental"] == {"seconds": 2.0, "scanned_bytes": 20, "scanned_files": 2, "spark_jobs": 9,
                                  "job_seconds": 1.25}
    assert ratio == {"seconds": pytest.approx(0.05), "scanned_bytes": pytest.approx(0.02)}
    assert paired["seconds"] == pytest.approx(0.05)  # 0.1, 0.05, 0.05
    text = report({"medians": med, "ratios": ratio, "ratios_per_repetition_median": paired,
                   "load_average": {"before": (1.0, 1.0, 1.0), "after": (2.0, 2.0, 2.0)}}, QUICK)
    assert "| incremental | 2.00 | 0.00 | 2 | 9 | 1.25 |" in text
    assert "Goal: incremental at most 5% of full. Wall time 5.0%, bytes 2.0%" in text
    assert "ran as" not in text
    reps = [{"incremental": {"ran_as": "full", "reason": "the changes touched most files"}},
            {"incremental": {"ran_as": "incremental", "reason": "changes since the watermarks"}}]
    text = report({"medians": med, "ratios": ratio, "ratios_per_repetition_median": paired, "repetitions": reps,
                   "load_average": {"before": (1.0, 1.0, 1.0), "after": (2.0, 2.0, 2.0)}}, QUICK)
    assert "ran as a full recompute in 1 of 2 repetitions: the changes touched most files." in text
    assert "not measured" not in text
    text = report({"medians": med, "ratios": ratio, "ratios_per_repetition_median": paired, "warm_up_seconds": 3.456,
                   "load_average": {"before": (1.0, 1.0, 1.0), "after": (2.0, 2.0, 2.0)}}, QUICK)
    assert "Before them one repetition's change and incremental run, not measured (3.46 s," in text


@pytest.mark.spark
def test_the_source_is_deterministic_and_late_sessions_lie_before_the_window(spark):
    from pyspark.sql import functions as F

    from benchmarks.incremental_etl import SESSION_EVENTS, events_frame

    start, end = datetime(2026, 10, 1), datetime(2026, 10, 2)
    first = events_frame(spark, 0, 800, start, end, users=100, seed=5).collect()
    again = events_frame(spark, 0, 800, start, end, users=100, seed=5).collect()
    assert first == again and len(first) == 800
    assert len({r.session_id for r in first}) == 800 // SESSION_EVENTS
    late = events_frame(spark, 0, 800, start, end, users=100, seed=5, late_share=1.0, mean_lateness_s=7200)
    assert late.where(F.col("event_time") < F.lit(start)).count() > 0, "every session late by about two hours"


@pytest.mark.spark
def test_the_work_s_spark_jobs_are_counted_timed_and_named(spark):
    spark.range(10).count()  # an earlier job is not the work's
    cost, total = measure_scans(spark, lambda: spark.range(100_000).selectExpr("sum(id) AS s").collect()[0].s)
    assert total == sum(range(100_000))
    assert cost.spark_jobs == len(cost.jobs) >= 1
    assert all("collect" in name for name, _ in cost.jobs), cost.jobs
    assert 0 < cost.job_seconds <= cost.seconds + 0.01
    assert cost.scanned_bytes == 0  # no Iceberg scan


def _numbers_table(spark, tmp_path, name):
    """An empty Iceberg table of one bigint column `n` in a catalog of this test's own; its qualified name."""
    from tests.conftest import register_catalog

    config = bench_config(tmp_path, {"events": demo_table("events")})
    register_catalog(spark, config)
    table = f"{config.catalog.name}.{config.catalog.namespace}.{name}"
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {config.catalog.name}.{config.catalog.namespace}")
    spark.sql(f"CREATE TABLE {table} (n bigint) USING iceberg")
    return table


@pytest.mark.spark
def test_a_measurement_counts_each_snapshot_range_read_which_reports_no_bytes(spark, tmp_path):
    """Iceberg's snapshot-range scans report no file sizes; the benchmark adds the range's files once per such read."""
    from benchmarks.common import RANGE_SCAN
    from lakeops.spark.etl_changes import CHANGE_TYPE, appended

    table = _numbers_table(spark, tmp_path, "range_reads")
    spark.createDataFrame([(1,), (2,)], "n bigint").writeTo(table).append()
    start = spark.sql(f"SELECT snapshot_id FROM {table}.snapshots").first().snapshot_id
    spark.createDataFrame([(3,)], "n bigint").writeTo(table).append()
    end = spark.sql(f"SELECT snapshot_id FROM {table}.snapshots WHERE parent_id = {start}").first().snapshot_id

    def added():  # the ETL's own read of the rows a snapshot range appended
        return appended(spark, table, start, end).drop(CHANGE_TYPE)

    cost, rows = measure_scans(spark, lambda: added().unionByName(added()).unionByName(spark.table(table)).collect())
    assert sorted(r.n for r in rows) == [1, 2, 3, 3, 3]
    files = spark.sql(f"SELECT count(*) AS n FROM {table}.files").first().n
    assert cost.range_reads == 2, RANGE_SCAN
    assert cost.scanned_files == files  # the plain read's files; the range reads report none
    cost, _ = measure_scans(spark, lambda: spark.table(table).collect())
    assert cost.range_reads == 0 and cost.scanned_files == files


@pytest.mark.spark
def test_a_measurement_counts_each_staged_read_which_reports_no_bytes(spark, tmp_path):
    """Iceberg's staged scans report no file sizes either; the benchmark counts the tasks of each staged read."""
    from lakeops.spark.scan_tasks import StagedReads, filtered_tasks, iceberg_expression, java_table

    table = _numbers_table(spark, tmp_path, "staged_reads")
    for n in (1, 2, 30):
        spark.createDataFrame([(n,)], "n bigint").writeTo(table).append()
    sizes = {r.n: r.size for r in spark.sql(f"SELECT readable_metrics.n.lower_bound AS n, file_size_in_bytes AS size "
                                            f"FROM {table}.files").collect()}
    jtable = java_table(spark, table)
    reads = StagedReads(spark, table, jtable)

    def twice():  # two reads of the files whose bounds may hold an n under 10
        tasks = filtered_tasks(spark, jtable, None, iceberg_expression(spark, table, "n < 10"))
        return reads.read_java(tasks).unionByName(reads.read_java(tasks)).collect()

    cost, rows = measure_scans(spark, twice)
    reads.release()
    assert sorted(r.n for r in rows) == [1, 1, 2, 2]
    both = 2 * (sizes[1] + sizes[2])
    assert (cost.scanned_files, cost.scanned_bytes, cost.staged_bytes) == (4, both, both)


@pytest.mark.spark
@pytest.mark.parametrize("among", [None, 100])
def test_the_changelog_changes_are_the_share_stated_and_where_stated(spark, tmp_path, among):
    """change_orders updates and deletes changed_share of the orders in all, half each, spread over the whole table
    or, with `among`, only among the newest `among` orders; and reports what it did."""
    from benchmarks.incremental_etl_orders import change_orders, create_orders
    from tests.conftest import register_catalog

    config = bench_config(tmp_path, {})
    register_catalog(spark, config)
    table = f"{config.catalog.name}.lakeops.orders"
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {config.catalog.name}.lakeops")
    spark.sql(f"CREATE TABLE {table} (order_id bigint, user_id bigint, status string, amount decimal(12, 2), "
              "currency string, created_at timestamp, updated_at timestamp) USING iceberg")
    create_orders(spark, table, days=4, rows_per_day=100, users=10, start=datetime(2026, 10, 1))

    new, changed = change_orders(spark, table, 400, 0.01, 0.05, rep=0, head=datetime(2026, 10, 5), users=10, among=among)
    rows = spark.table(table).collect()
    updated = [r.order_id for r in rows if r.status == "paid"]
    deleted = sorted(set(range(400)) - {r.order_id for r in rows})
    assert (new, changed) == (4, 20) == (sum(r.order_id >= 400 for r in rows), len(updated) + len(deleted))
    assert len(updated) == len(deleted) == 10
    if among:
        assert min(updated + deleted) >= 300
    else:
        assert min(updated + deleted) < 100 and max(updated + deleted) >= 300
