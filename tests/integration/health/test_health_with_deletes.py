"""Health metrics on tables whose delete files Spark wrote (position deletes, file- and
partition-scoped, and v3 deletion vectors), checked against Spark's own metadata tables."""

from __future__ import annotations

import pytest

from lakeops.catalog import load_catalog
from lakeops.health.compute import compute_health

pytestmark = pytest.mark.spark


def _spark_files(spark, qualified: str) -> dict:
    data = spark.sql(f"SELECT count(*), sum(record_count), sum(file_size_in_bytes) FROM {qualified}.data_files").first()
    deletes = spark.sql(f"SELECT file_format, count(*), sum(record_count), "
                        f"sum(coalesce(content_size_in_bytes, file_size_in_bytes)) FROM {qualified}.delete_files "
                        "GROUP BY file_format").collect()
    return {"data": tuple(data), "deletes": {r[0]: tuple(r[1:]) for r in deletes}}


def _spark_pairs(spark, qualified: str) -> int:
    """(data file, delete file) pairs a scan reads, from Spark's entries table: a delete file
    naming a data file applies to it; a partition-scoped one to older-or-equal data files."""
    # v2 file-scoped position deletes name their data file through equal bounds of the file_path column.
    path_id = 2147483546
    rows = spark.sql(f"SELECT data_file.content, sequence_number, data_file.partition.d, data_file.file_path, "
                     f"coalesce(data_file.referenced_data_file, CASE WHEN data_file.lower_bounds[{path_id}] = "
                     f"data_file.upper_bounds[{path_id}] THEN CAST(data_file.lower_bounds[{path_id}] AS STRING) END) "
                     f"FROM {qualified}.entries WHERE status < 2").collect()
    data = [(r[1], r[2], r[3]) for r in rows if r[0] == 0]
    pairs = 0
    for _content, seq, part, _, referenced in (r for r in rows if r[0] != 0):
        if referenced:
            pairs += sum(1 for s, p, path in data if path == referenced and s <= seq)
        else:
            pairs += sum(1 for s, p, _ in data if p == part and s <= seq)
    return pairs


@pytest.mark.parametrize("name", ["v2_file", "v2_partition", "v3"])
def test_delete_files_and_read_amplification_match_spark(spark, mor_tables, name):
    config = mor_tables
    qualified = config.qualified(name)
    table = load_catalog(config.catalog).load_table(config.identifier(name))
    health = compute_health(table)
    expected = _spark_files(spark, qualified)

    assert (health.data_files, health.data_records, health.data_bytes) == expected["data"]
    if name == "v3":
        assert health.position_delete_files == 0 and health.deletion_vectors == expected["deletes"]["PUFFIN"][0] > 0
    else:
        assert health.deletion_vectors == 0 and health.position_delete_files == expected["deletes"]["PARQUET"][0] > 0
    (count, records, size), = expected["deletes"].values()
    assert (health.delete_files, health.delete_records, health.delete_bytes) == (count, records, size)
    assert health.equality_delete_files == 0
    assert health.delete_files_per_data_file == pytest.approx(count / health.data_files)

    pairs = _spark_pairs(spark, qualified)
    assert health.read_amp_files == pytest.approx((health.data_files + pairs) / health.data_files)
    assert health.read_amp_files > 1.0
    # 16 rows are deleted or superseded; position deletes mark each once, so live rows are exact.
    live_rows = spark.sql(f"SELECT count(*) FROM {qualified}").first()[0]
    assert health.data_records - health.delete_records == live_rows == 1999
    assert health.read_amp_bytes > 1.0
    assert sum(p.delete_files for p in health.partitions) == health.delete_files
    assert {p.partition for p in health.partitions} == {"d=0", "d=1"}
    # Every delete file was committed moments ago: all of them count as growth in the last hour.
    assert health.delete_files_added_per_hour == health.delete_files


def test_partition_scoped_deletes_amplify_more_than_file_scoped(mor_tables):
    catalog = load_catalog(mor_tables.catalog)
    scoped = compute_health(catalog.load_table(mor_tables.identifier("v2_file")))
    wide = compute_health(catalog.load_table(mor_tables.identifier("v2_partition")))
    assert wide.read_amp_files > scoped.read_amp_files


def test_growth_window_excludes_older_delete_files(mor_tables):
    table = load_catalog(mor_tables.catalog).load_table(mor_tables.identifier("v3"))
    later = table.current_snapshot().timestamp_ms + 2 * 3600 * 1000
    health = compute_health(table, now_ms=later)
    assert health.delete_files > 0 and health.delete_files_added_per_hour == 0
    assert health.last_commit_age_s == pytest.approx(7200, abs=1)
