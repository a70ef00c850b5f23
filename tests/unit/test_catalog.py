"""lakeops.catalog: Spark and pyiceberg settings of one catalog, compared to literal dicts."""

from __future__ import annotations

import pytest

from lakeops.catalog import SPARK_EXTENSIONS, export_s3_endpoint, pyiceberg_catalog_props, spark_catalog_conf
from lakeops.config import CatalogConfig

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "AKIATEST", "AWS_SECRET_ACCESS_KEY": "s3cr3t-value"}


@pytest.fixture
def embedded() -> CatalogConfig:
    return CatalogConfig(kind="embedded", data_dir="/srv/lake")


@pytest.fixture
def rest() -> CatalogConfig:
    return CatalogConfig(
        kind="rest",
        name="prod",
        namespace="web",
        uri="http://rest:8181",
        warehouse="s3://lake/warehouse",
        s3_endpoint="http://minio:9000",
        s3_region="eu-west-1",
    )


def test_extensions_class():
    assert SPARK_EXTENSIONS == "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"


def test_spark_conf_embedded(embedded):
    assert spark_catalog_conf(embedded) == {
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        "spark.sql.catalog.lakeops": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.lakeops.warehouse": "file:///srv/lake/warehouse",
        "spark.sql.defaultCatalog": "lakeops",
        "spark.sql.catalog.lakeops.type": "jdbc",
        "spark.sql.catalog.lakeops.uri": "jdbc:sqlite:/srv/lake/catalog.db",
        "spark.sql.catalog.lakeops.jdbc.schema-version": "V1",
    }


def test_pyiceberg_props_embedded(embedded):
    assert pyiceberg_catalog_props(embedded, env={}) == {
        "type": "sql",
        "uri": "sqlite:////srv/lake/catalog.db",
        "warehouse": "file:///srv/lake/warehouse",
    }


def test_embedded_ignores_credentials(embedded):
    assert pyiceberg_catalog_props(embedded, env=CREDENTIALS) == pyiceberg_catalog_props(embedded, env={})


def test_spark_conf_rest_with_endpoint(rest):
    assert spark_catalog_conf(rest) == {
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        "spark.sql.catalog.prod": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.prod.warehouse": "s3://lake/warehouse",
        "spark.sql.defaultCatalog": "prod",
        "spark.sql.catalog.prod.type": "rest",
        "spark.sql.catalog.prod.uri": "http://rest:8181",
        "spark.sql.catalog.prod.io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
        "spark.sql.catalog.prod.client.region": "eu-west-1",
        "spark.sql.catalog.prod.s3.endpoint": "http://minio:9000",
        "spark.sql.catalog.prod.s3.path-style-access": "true",
    }


def test_pyiceberg_props_rest_with_endpoint_and_credentials(rest):
    assert pyiceberg_catalog_props(rest, env=CREDENTIALS) == {
        "type": "rest",
        "uri": "http://rest:8181",
        "warehouse": "s3://lake/warehouse",
        "s3.region": "eu-west-1",
        "s3.endpoint": "http://minio:9000",
        "s3.force-virtual-addressing": "false",
        "s3.access-key-id": "AKIATEST",
        "s3.secret-access-key": "s3cr3t-value",
    }


def test_rest_without_endpoint_uses_aws_defaults():
    catalog = CatalogConfig(kind="rest", uri="https://catalog.example.com", warehouse="s3://lake/wh", s3_path_style_access=False)
    assert spark_catalog_conf(catalog) == {
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        "spark.sql.catalog.lakeops": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.lakeops.warehouse": "s3://lake/wh",
        "spark.sql.defaultCatalog": "lakeops",
        "spark.sql.catalog.lakeops.type": "rest",
        "spark.sql.catalog.lakeops.uri": "https://catalog.example.com",
        "spark.sql.catalog.lakeops.io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
        "spark.sql.catalog.lakeops.client.region": "us-east-1",
    }
    assert pyiceberg_catalog_props(catalog, env={}) == {
        "type": "rest",
        "uri": "https://catalog.example.com",
        "warehouse": "s3://lake/wh",
        "s3.region": "us-east-1",
    }


def test_virtual_host_addressing_with_endpoint():
    catalog = CatalogConfig(kind="rest", uri="http://rest", warehouse="s3://w", s3_endpoint="https://s3.example.com",
                            s3_path_style_access=False)
    assert spark_catalog_conf(catalog)["spark.sql.catalog.lakeops.s3.path-style-access"] == "false"
    assert pyiceberg_catalog_props(catalog, env={})["s3.force-virtual-addressing"] == "true"


def test_credentials_come_only_from_the_env_passed_in(rest, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "from-os-environ")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "from-os-environ-secret")
    props = pyiceberg_catalog_props(rest, env={})
    assert "s3.access-key-id" not in props
    assert "s3.secret-access-key" not in props
    only_key = pyiceberg_catalog_props(rest, env={"AWS_ACCESS_KEY_ID": "AKIAONLY"})
    assert only_key["s3.access-key-id"] == "AKIAONLY"
    assert "s3.secret-access-key" not in only_key


def test_empty_credentials_are_left_out(rest):
    props = pyiceberg_catalog_props(rest, env={"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""})
    assert "s3.access-key-id" not in props
    assert "s3.secret-access-key" not in props


def test_without_env_argument_os_environ_is_read(rest, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAOS")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "os-secret")
    props = pyiceberg_catalog_props(rest)
    assert props["s3.access-key-id"] == "AKIAOS"
    assert props["s3.secret-access-key"] == "os-secret"


def test_spark_conf_never_carries_credentials(rest, monkeypatch):
    for key, value in CREDENTIALS.items():
        monkeypatch.setenv(key, value)
    values = spark_catalog_conf(rest).values()
    assert not any(secret in value for secret in CREDENTIALS.values() for value in values)


def test_both_clients_point_at_the_same_catalog(make_config):
    catalog = make_config({"catalog": {"data_dir": "lake"}}).catalog
    spark = spark_catalog_conf(catalog)
    props = pyiceberg_catalog_props(catalog, env={})
    assert spark["spark.sql.catalog.lakeops.warehouse"] == props["warehouse"]
    assert spark["spark.sql.catalog.lakeops.uri"].removeprefix("jdbc:sqlite:") == props["uri"].removeprefix("sqlite:///")
    assert props["uri"] == f"sqlite:///{catalog.data_dir}/catalog.db"


def test_s3_endpoint_is_exported_for_files_opened_by_location(rest, embedded):
    env: dict[str, str] = {}
    export_s3_endpoint(rest, env)
    assert env == {"AWS_ENDPOINT_URL": "http://minio:9000", "AWS_REGION": "eu-west-1"}
    kept = {"AWS_ENDPOINT_URL": "https://s3.internal", "AWS_REGION": "us-west-2"}
    export_s3_endpoint(rest, kept)
    assert kept == {"AWS_ENDPOINT_URL": "https://s3.internal", "AWS_REGION": "us-west-2"}
    untouched: dict[str, str] = {}
    export_s3_endpoint(embedded, untouched)
    export_s3_endpoint(CatalogConfig(kind="rest", uri="http://rest", warehouse="s3://w"), untouched)
    assert untouched == {}


def test_s3a_settings_follow_the_catalog_and_carry_no_keys(rest, embedded, monkeypatch):
    from lakeops.catalog import spark_s3_conf

    for key, value in CREDENTIALS.items():
        monkeypatch.setenv(key, value)
    conf = spark_s3_conf(rest)
    assert conf["spark.hadoop.fs.s3.impl"] == "org.apache.hadoop.fs.s3a.S3AFileSystem"
    assert conf["spark.hadoop.fs.s3a.endpoint"] == "http://minio:9000"
    assert conf["spark.hadoop.fs.s3a.path.style.access"] == "true"
    assert conf["spark.hadoop.fs.s3a.endpoint.region"] == "eu-west-1"
    assert not any(secret in value for secret in CREDENTIALS.values() for value in conf.values())
    assert spark_s3_conf(embedded) == {}
    aws = spark_s3_conf(CatalogConfig(kind="rest", uri="http://rest", warehouse="s3://w"))
    assert "spark.hadoop.fs.s3a.endpoint" not in aws
