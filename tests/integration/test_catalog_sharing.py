"""One catalog, two clients: Spark (Iceberg JdbcCatalog) and pyiceberg (SqlCatalog) on the same SQLite file."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from lakeops.catalog import load_catalog

pytestmark = pytest.mark.spark


def test_table_written_by_spark_reads_the_same_in_pyiceberg(catalog_spark, lakeops_config):
    table = lakeops_config.qualified("sharing_a")
    catalog_spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {lakeops_config.catalog.name}.lakeops")
    catalog_spark.sql(f"CREATE TABLE {table} (id BIGINT, name STRING, at TIMESTAMP) USING iceberg PARTITIONED BY (days(at))")
    catalog_spark.sql(f"""INSERT INTO {table} VALUES
        (1, 'a', TIMESTAMP '2026-11-20 10:00:00'), (2, 'b', TIMESTAMP '2026-11-21 11:00:00'),
        (3, NULL, TIMESTAMP '2026-11-21 12:00:00')""")
    spark_rows = sorted(tuple(r) for r in catalog_spark.table(table).collect())

    loaded = load_catalog(lakeops_config.catalog).load_table("lakeops.sharing_a")
    arrow = loaded.scan().to_arrow().sort_by("id")
    iceberg_rows = [(r["id"], r["name"], r["at"].replace(tzinfo=None) if r["at"] else None) for r in arrow.to_pylist()]

    assert iceberg_rows == [(i, n, a.replace(tzinfo=None)) for i, n, a in spark_rows]
    assert len(iceberg_rows) == 3
    assert loaded.metadata.current_snapshot_id == catalog_spark.sql(
        f"SELECT snapshot_id FROM {table}.history WHERE is_current_ancestor ORDER BY made_current_at DESC LIMIT 1").first()[0]


def test_commit_made_by_pyiceberg_is_visible_to_spark(catalog_spark, lakeops_config):
    table = lakeops_config.qualified("sharing_b")
    catalog_spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {lakeops_config.catalog.name}.lakeops")
    catalog_spark.sql(f"CREATE TABLE {table} (id BIGINT, name STRING) USING iceberg")
    catalog_spark.sql(f"INSERT INTO {table} VALUES (1, 'from spark')")

    loaded = load_catalog(lakeops_config.catalog).load_table("lakeops.sharing_b")
    loaded.append(pa.table({"id": pa.array([2, 3], pa.int64()), "name": ["from pyiceberg", "also"]}))

    catalog_spark.sql(f"REFRESH TABLE {table}")
    rows = sorted(tuple(r) for r in catalog_spark.table(table).collect())
    assert rows == [(1, "from spark"), (2, "from pyiceberg"), (3, "also")]
    assert catalog_spark.sql(f"SELECT count(*) FROM {table}.snapshots").first()[0] == 2


def test_table_created_by_pyiceberg_is_writable_by_spark(catalog_spark, lakeops_config):
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField, TimestamptzType

    catalog = load_catalog(lakeops_config.catalog)
    catalog.create_namespace_if_not_exists("lakeops")
    catalog.create_table("lakeops.sharing_c", Schema(NestedField(1, "id", LongType(), required=False),
                                                      NestedField(2, "at", TimestamptzType(), required=False)))
    table = lakeops_config.qualified("sharing_c")
    catalog_spark.sql(f"INSERT INTO {table} VALUES (7, TIMESTAMP '2026-11-21 10:00:00')")
    arrow = catalog.load_table("lakeops.sharing_c").scan().to_arrow()
    assert arrow.column("id").to_pylist() == [7]
    assert arrow.column("at").to_pylist() == [dt.datetime(2026, 11, 21, 10, 0, tzinfo=dt.UTC)]
