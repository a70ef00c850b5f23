"""One catalog on a real PostgreSQL server, two clients: Iceberg's JdbcCatalog in Spark and pyiceberg's
SqlCatalog share its tables (schema V1), as test_catalog_sharing shows for the embedded SQLite file.

The catalog block names the database once (postgresql://host:port/db); the user and password come from
the environment or from an Airflow connection, and each client gets its own form of the address.
"""

from __future__ import annotations

import json
import uuid
from contextlib import closing

import pyarrow as pa
import pytest

from lakeops.catalog import load_catalog, spark_catalog_conf
from lakeops.catalogs.config import CatalogConfig
from lakeops.catalogs.mapping import SPARK_EXTENSIONS

pytestmark = pytest.mark.spark


@pytest.fixture
def pg_catalog(postgres_server, postgres_database, tmp_path, monkeypatch) -> CatalogConfig:
    """A sql catalog in a fresh database; its password in an Airflow connection (read when the catalog is used)."""
    connection = {"conn_type": "postgres", "login": postgres_server.superuser, "password": postgres_server.password}
    monkeypatch.setenv("AIRFLOW_CONN_LAKEOPS_CATALOG_DB", json.dumps(connection))
    for name in ("LAKEOPS_CATALOG_USER", "LAKEOPS_CATALOG_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    return CatalogConfig(kind="sql", name=f"pg{uuid.uuid4().hex[:8]}", namespace="analytics.web",
                         uri=f"postgresql://{postgres_server.host}:{postgres_server.port}/{postgres_database}",
                         warehouse=(tmp_path / "warehouse").as_uri(), conn_id="lakeops_catalog_db")


@pytest.fixture
def pg_spark(spark, pg_catalog):
    """The session spark with the PostgreSQL catalog registered (catalog settings are runtime SQL settings)."""
    for key, value in spark_catalog_conf(pg_catalog).items():
        if value != SPARK_EXTENSIONS and key != "spark.sql.defaultCatalog":
            spark.conf.set(key, value)
    return spark


def test_table_written_by_spark_reads_the_same_in_pyiceberg(pg_spark, pg_catalog, postgres_server, postgres_database):
    table = f"{pg_catalog.name}.analytics.web.clicks"
    pg_spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {pg_catalog.name}.analytics.web")
    pg_spark.sql(f"CREATE TABLE {table} (id BIGINT, page STRING, at TIMESTAMP) USING iceberg PARTITIONED BY (hours(at))")
    pg_spark.sql(f"""INSERT INTO {table} VALUES (1, '/a', TIMESTAMP '2026-11-21 10:00:00'),
                     (2, '/b', TIMESTAMP '2026-11-21 11:30:00'), (3, NULL, TIMESTAMP '2026-11-21 11:45:00')""")
    spark_rows = sorted((r.id, r.page) for r in pg_spark.table(table).collect())

    loaded = load_catalog(pg_catalog).load_table("analytics.web.clicks")
    assert sorted((r["id"], r["page"]) for r in loaded.scan().to_arrow().to_pylist()) == spark_rows == [
        (1, "/a"), (2, "/b"), (3, None)]
    assert loaded.metadata.current_snapshot_id == pg_spark.sql(
        f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at DESC LIMIT 1").first()[0]
    assert [f.name for f in loaded.spec().fields] == ["at_hour"]

    # both clients keep the table in PostgreSQL's iceberg_tables (Iceberg's JDBC schema V1)
    with closing(postgres_server.connect(postgres_database)) as conn, conn.cursor() as cur:
        cur.execute("SELECT catalog_name, table_namespace, table_name, iceberg_type FROM iceberg_tables")
        assert cur.fetchall() == [(pg_catalog.name, "analytics.web", "clicks", "TABLE")]


def test_table_created_and_appended_by_pyiceberg_is_writable_by_spark(pg_spark, pg_catalog):
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField, StringType

    catalog = load_catalog(pg_catalog)
    catalog.create_namespace_if_not_exists("analytics.web")
    created = catalog.create_table("analytics.web.orders", Schema(NestedField(1, "id", LongType(), required=False),
                                                                  NestedField(2, "status", StringType(), required=False)))
    created.append(pa.table({"id": pa.array([1, 2], pa.int64()), "status": ["new", "paid"]}))

    table = f"{pg_catalog.name}.analytics.web.orders"
    pg_spark.sql(f"REFRESH TABLE {table}")
    assert sorted((r.id, r.status) for r in pg_spark.table(table).collect()) == [(1, "new"), (2, "paid")]
    pg_spark.sql(f"INSERT INTO {table} VALUES (3, 'from spark')")

    reloaded = catalog.load_table("analytics.web.orders")
    assert sorted(reloaded.scan().to_arrow().column("id").to_pylist()) == [1, 2, 3]
    assert len(reloaded.snapshots()) == 2


def test_a_wrong_password_fails_with_an_error_that_names_the_catalog_not_the_password(pg_catalog, postgres_server, monkeypatch):
    from lakeops.exceptions import CatalogError

    monkeypatch.setenv("LAKEOPS_CATALOG_USER", postgres_server.superuser)
    monkeypatch.setenv("LAKEOPS_CATALOG_PASSWORD", "not-the-password-4711")
    with pytest.raises(CatalogError) as info:
        load_catalog(pg_catalog)
    assert f"catalog {pg_catalog.name!r} (sql" in str(info.value)
    assert "not-the-password-4711" not in str(info.value)
