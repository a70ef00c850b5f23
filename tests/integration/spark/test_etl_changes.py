"""lakeops.spark.etl_changes.changed_rows on local Spark + Iceberg: the rows a snapshot diff touches, told apart by
position in the files live at both snapshots and by content in the others, on a merge-on-read table."""

from __future__ import annotations

import pytest

from lakeops.spark.etl_changes import changed_between, changed_rows
from lakeops.spark.scan_tasks import StagedReads, java_table
from tests.integration.spark.helpers import newest_snapshot

pytestmark = pytest.mark.spark


def _table(spark, config, name: str, version: int = 2) -> str:
    table = config.qualified(name)
    spark.sql(f"CREATE TABLE {table} (id BIGINT, v STRING) USING iceberg TBLPROPERTIES ("
              f"'format-version'='{version}', 'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read')")
    for first in (0, 100, 200):  # three files
        spark.sql(f"INSERT INTO {table} SELECT id, 'v' FROM range({first}, {first + 100})")
    return table


def _changed(spark, table: str, start: int, end: int, column: str = "id"):
    """(the changed rows' values of column, the physical plan of that read)."""
    reads = StagedReads(spark, table, java_table(spark, table))
    try:
        frame = changed_rows(reads, table, start, end, changed_between(reads, start, end)).select(column)
        return sorted(r[0] for r in frame.collect()), frame._jdf.queryExecution().executedPlan().toString()
    finally:
        reads.release()


@pytest.mark.parametrize("version", [2, 3])  # position deletes; deletion vectors and row ids
def test_the_rows_deleted_updated_and_inserted_and_no_other(catalog_spark, lakeops_config, version):
    spark = catalog_spark
    table = _table(spark, lakeops_config, f"changed_rows_mor_v{version}", version)
    start = newest_snapshot(spark, table)
    spark.sql(f"DELETE FROM {table} WHERE id IN (5, 150)")  # position deletes in two files live at both
    spark.sql(f"UPDATE {table} SET v = 'w' WHERE id = 7")  # a position delete and the new row in a new file
    spark.sql(f"INSERT INTO {table} VALUES (300, 'v')")
    spark.sql(f"INSERT INTO {table} VALUES (301, 'v')")
    spark.sql(f"DELETE FROM {table} WHERE id = 301")  # added and deleted in the range: in no read
    ids, plan = _changed(spark, table, start, newest_snapshot(spark, table))
    assert ids == [5, 7, 7, 150, 300]  # 7 twice: its row before the update and after
    # The files live at both are read for the selected column and the row's place only (its file and position, or
    # on format 3 its row id), not for v.
    assert ("_pos" if version == 2 else "_row_id") in plan and ", v#" not in plan and "[v#" not in plan


def test_a_compaction_alone_touches_no_row_and_with_a_delete_only_the_deleted_ones(catalog_spark, lakeops_config):
    spark = catalog_spark
    table = _table(spark, lakeops_config, "changed_rows_compacted")
    spark.sql(f"DELETE FROM {table} WHERE id = 42")
    start = newest_snapshot(spark, table)
    spark.sql(f"CALL {lakeops_config.catalog.name}.system.rewrite_data_files(table => '{table}', "
              "options => map('rewrite-all', 'true', 'delete-file-threshold', '1'))")
    compacted = newest_snapshot(spark, table)
    assert compacted != start
    assert _changed(spark, table, start, compacted)[0] == []  # the same rows in other files: no change
    spark.sql(f"DELETE FROM {table} WHERE id IN (3, 250)")
    assert _changed(spark, table, start, newest_snapshot(spark, table))[0] == [3, 250]


def test_a_table_upgraded_to_format_3_between_the_snapshots(catalog_spark, lakeops_config):
    # Files written at format 2 had no row ids at first; whether Iceberg has assigned them by the diff or not, the
    # deleted rows are found (by row id where a file has them, else by content).
    spark = catalog_spark
    table = _table(spark, lakeops_config, "changed_rows_upgraded")
    start = newest_snapshot(spark, table)
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('format-version'='3')")
    spark.sql(f"DELETE FROM {table} WHERE id IN (8, 180)")
    spark.sql(f"INSERT INTO {table} VALUES (400, 'v')")
    assert _changed(spark, table, start, newest_snapshot(spark, table))[0] == [8, 180, 400]
