"""lakeops.spark.scan_tasks on local Spark + Iceberg: a staged read returns exactly the rows of the
files staged, at the snapshot they were planned at, with the delete files that applied there."""

from __future__ import annotations

import pytest

from lakeops.spark.scan_tasks import StagedReads, java_table, planned_files, singleton
from tests.integration.spark.helpers import newest_snapshot

pytestmark = pytest.mark.spark


def test_a_staged_read_returns_only_the_staged_files_rows_as_of_theirnewest_snapshot(catalog_spark, lakeops_config):
    spark = catalog_spark
    table = lakeops_config.qualified("staged_reads")
    spark.sql(f"CREATE TABLE {table} (id BIGINT, v STRING) USING iceberg TBLPROPERTIES ("
              "'format-version'='2', 'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read')")
    for first in (0, 100, 200):  # three appends
        spark.sql(f"INSERT INTO {table} SELECT id, 'v' FROM range({first}, {first + 100})")
    before = newest_snapshot(spark, table)
    spark.sql(f"DELETE FROM {table} WHERE id % 10 = 0")  # position deletes on every file
    after = newest_snapshot(spark, table)

    reads = StagedReads(spark, table, java_table(spark, table))
    try:
        at_before, at_after = planned_files(reads.jtable, before), planned_files(reads.jtable, after)
        assert at_before.keys() == at_after.keys() and len(at_before) > 2
        assert all(not f.deletes for f in at_before.values()) and all(f.deletes for f in at_after.values())
        first = [p for p in at_before if spark.read.parquet(p).agg({"id": "max"}).collect()[0][0] < 100]  # the first append's

        old = sorted(r.id for r in reads.read([at_before[p].task for p in first]).collect())
        new = sorted(r.id for r in reads.read([at_after[p].task for p in first]).collect())
        assert old == list(range(100))  # that file only, no delete applied before the DELETE
        assert new == [i for i in range(100) if i % 10]  # the same file with its position deletes
        assert reads.read([]).count() == 0
    finally:
        reads.release()


def test_singleton_is_the_jvm_wide_instance_of_the_class(catalog_spark, lakeops_config):
    # SparkTableCache has a static get() and an instance get(String); py4j's own lookup of
    # `SparkTableCache.get` failed in some processes, which broke every staged read there.
    spark = catalog_spark
    table = lakeops_config.qualified("singleton_probe")
    spark.sql(f"CREATE TABLE {table} (id BIGINT) USING iceberg")
    cache, key = singleton(spark, "org.apache.iceberg.spark.SparkTableCache"), "lakeops-test-singleton"
    cache.add(key, java_table(spark, table))
    try:
        assert singleton(spark, "org.apache.iceberg.spark.SparkTableCache").contains(key)
    finally:
        cache.remove(key)
    assert not singleton(spark, "org.apache.iceberg.spark.SparkTableCache").contains(key)
    manager = singleton(spark, "org.apache.iceberg.spark.ScanTaskSetManager")
    assert manager.equals(singleton(spark, "org.apache.iceberg.spark.ScanTaskSetManager"))


def test_a_staged_read_of_a_few_small_files_is_spread_over_the_cores(catalog_spark, lakeops_config):
    # Iceberg's 128 MB split packs these few small files into one task; spread, each core reads some of them, and
    # the rows (their position deletes applied) are the same.
    spark = catalog_spark
    table = lakeops_config.qualified("spread_reads")
    spark.sql(f"CREATE TABLE {table} (id BIGINT, v STRING) USING iceberg TBLPROPERTIES ("
              "'format-version'='2', 'write.delete.mode'='merge-on-read')")
    for first in (0, 100, 200):
        spark.sql(f"INSERT INTO {table} SELECT id, 'v' FROM range({first}, {first + 100})")
    spark.sql(f"DELETE FROM {table} WHERE id % 10 = 0")
    cores = spark.sparkContext.defaultParallelism
    assert cores >= 2, "the shared session runs on more than one core"

    reads = StagedReads(spark, table, java_table(spark, table))
    try:
        tasks = [f.task for f in planned_files(reads.jtable, newest_snapshot(spark, table)).values()]
        assert len(tasks) >= 3
        frame = reads.read(tasks)
        assert frame.rdd.getNumPartitions() >= 2
        assert sorted(r.id for r in frame.collect()) == [i for i in range(300) if i % 10]
        one = reads.read(tasks[:1])
        assert one.rdd.getNumPartitions() == 1  # a file of one row group is not split
        assert one.count() == len([r for r in one.collect() if r.id % 10]) > 0
    finally:
        reads.release()
