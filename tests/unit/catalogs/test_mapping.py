"""lakeops.catalogs.mapping: both clients' settings of every catalog kind, compared to literal dicts."""

from __future__ import annotations

import pytest

from lakeops.catalogs.config import CatalogConfig
from lakeops.catalogs.mapping import (
    pyiceberg_properties,
    spark_catalog_settings,
    spark_properties,
    spark_s3a_settings,
    spark_session_settings,
)
from lakeops.catalogs.secrets import CatalogSecrets

NO_SECRETS = CatalogSecrets()
AWS_KEYS = CatalogSecrets(aws_access_key_id="AKIATEST", aws_secret_access_key="aws-secret-value", aws_session_token="aws-session")


def test_embedded():
    config = CatalogConfig(kind="embedded", data_dir="/srv/lake")
    assert pyiceberg_properties(config, NO_SECRETS) == {
        "type": "sql",
        "uri": "sqlite:////srv/lake/catalog.db",
        "warehouse": "file:///srv/lake/warehouse",
    }
    assert spark_catalog_settings(config, NO_SECRETS) == {
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        "spark.sql.catalog.lakeops": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.defaultCatalog": "lakeops",
        "spark.sql.catalog.lakeops.type": "jdbc",
        "spark.sql.catalog.lakeops.uri": "jdbc:sqlite:/srv/lake/catalog.db",
        "spark.sql.catalog.lakeops.warehouse": "file:///srv/lake/warehouse",
        "spark.sql.catalog.lakeops.jdbc.schema-version": "V1",
    }


def test_embedded_ignores_the_other_kinds_values_and_the_environments_keys():
    # the shipped file sets warehouse/s3_endpoint from ${VAR:-default} whatever the kind
    config = CatalogConfig(kind="embedded", data_dir="/srv/lake", warehouse="s3://lakeops/warehouse", s3_endpoint="http://minio:9000")
    assert pyiceberg_properties(config, AWS_KEYS) == pyiceberg_properties(CatalogConfig(data_dir="/srv/lake"), NO_SECRETS)
    assert spark_s3a_settings(config) == {}


def test_sql_on_postgresql_with_s3_warehouse():
    config = CatalogConfig(kind="sql", name="prod", namespace="analytics.web", uri="postgresql://db.internal:5432/iceberg",
                           warehouse="s3://lake/warehouse", s3_region="eu-west-1")
    secrets = CatalogSecrets(user="iceberg", password="p@ss:w/rd", aws_access_key_id="AKIATEST",
                             aws_secret_access_key="aws-secret")
    assert pyiceberg_properties(config, secrets) == {
        "type": "sql",
        "uri": "postgresql+psycopg2://iceberg:p%40ss%3Aw%2Frd@db.internal:5432/iceberg",
        "warehouse": "s3://lake/warehouse",
        "s3.region": "eu-west-1",
        "s3.access-key-id": "AKIATEST",
        "s3.secret-access-key": "aws-secret",
    }
    assert spark_properties(config, secrets) == {
        "type": "jdbc",
        "uri": "jdbc:postgresql://db.internal:5432/iceberg",
        "warehouse": "s3://lake/warehouse",
        "jdbc.schema-version": "V1",
        "jdbc.user": "iceberg",
        "jdbc.password": "p@ss:w/rd",
        "io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
        "client.region": "eu-west-1",
    }


@pytest.mark.parametrize("uri", ["postgresql://db:5432/iceberg?sslmode=require", "postgres://db:5432/iceberg?sslmode=require",
                                 "postgresql+psycopg2://db:5432/iceberg?sslmode=require",
                                 "jdbc:postgresql://db:5432/iceberg?sslmode=require"])
def test_sql_url_forms_give_the_same_settings(uri):
    config = CatalogConfig(kind="sql", uri=uri, warehouse="file:///srv/wh")
    secrets = CatalogSecrets(user="u", password="pw")
    assert pyiceberg_properties(config, secrets) == {
        "type": "sql", "uri": "postgresql+psycopg2://u:pw@db:5432/iceberg?sslmode=require", "warehouse": "file:///srv/wh"}
    assert spark_properties(config, secrets) == {
        "type": "jdbc", "uri": "jdbc:postgresql://db:5432/iceberg?sslmode=require", "warehouse": "file:///srv/wh",
        "jdbc.schema-version": "V1", "jdbc.user": "u", "jdbc.password": "pw"}


def test_sql_user_in_the_url_is_used_when_no_secret_names_one():
    config = CatalogConfig(kind="sql", uri="jdbc:postgresql://reader@db/iceberg", warehouse="/srv/wh")
    assert pyiceberg_properties(config, CatalogSecrets(password="pw"))["uri"] == "postgresql+psycopg2://reader:pw@db/iceberg"
    assert spark_properties(config, CatalogSecrets(password="pw"))["jdbc.user"] == "reader"


def test_sql_on_sqlite():
    config = CatalogConfig(kind="sql", uri="jdbc:sqlite:/srv/cat.db", warehouse="/srv/wh")
    assert pyiceberg_properties(config, NO_SECRETS) == {"type": "sql", "uri": "sqlite:////srv/cat.db", "warehouse": "/srv/wh"}
    assert spark_properties(config, NO_SECRETS) == {"type": "jdbc", "uri": "jdbc:sqlite:/srv/cat.db", "warehouse": "/srv/wh",
                                                    "jdbc.schema-version": "V1"}


def test_rest_with_s3_endpoint_and_no_auth():
    config = CatalogConfig(kind="rest", name="prod", uri="http://rest:8181", warehouse="s3://lake/warehouse",
                           s3_endpoint="http://minio:9000", s3_region="eu-west-1")
    assert pyiceberg_properties(config, AWS_KEYS) == {
        "type": "rest",
        "uri": "http://rest:8181",
        "warehouse": "s3://lake/warehouse",
        "header.X-Iceberg-Access-Delegation": "vended-credentials",
        "s3.region": "eu-west-1",
        "s3.endpoint": "http://minio:9000",
        "s3.force-virtual-addressing": "false",
        "s3.access-key-id": "AKIATEST",
        "s3.secret-access-key": "aws-secret-value",
        "s3.session-token": "aws-session",
    }
    assert spark_catalog_settings(config, AWS_KEYS) == {
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        "spark.sql.catalog.prod": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.defaultCatalog": "prod",
        "spark.sql.catalog.prod.type": "rest",
        "spark.sql.catalog.prod.uri": "http://rest:8181",
        "spark.sql.catalog.prod.warehouse": "s3://lake/warehouse",
        "spark.sql.catalog.prod.header.X-Iceberg-Access-Delegation": "vended-credentials",
        "spark.sql.catalog.prod.io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
        "spark.sql.catalog.prod.client.region": "eu-west-1",
        "spark.sql.catalog.prod.s3.endpoint": "http://minio:9000",
        "spark.sql.catalog.prod.s3.path-style-access": "true",
    }


def test_rest_polaris_with_oauth2_and_vended_credentials():
    config = CatalogConfig(kind="rest", uri="https://polaris.internal/api/catalog", warehouse="analytics", auth="oauth2",
                           oauth2_server_uri="https://polaris.internal/api/catalog/v1/oauth/tokens", scope="PRINCIPAL_ROLE:ALL")
    secrets = CatalogSecrets(credential="client-id:client-secret")
    shared = {"uri": "https://polaris.internal/api/catalog", "warehouse": "analytics", "credential": "client-id:client-secret",
              "oauth2-server-uri": "https://polaris.internal/api/catalog/v1/oauth/tokens", "scope": "PRINCIPAL_ROLE:ALL",
              "header.X-Iceberg-Access-Delegation": "vended-credentials"}
    # the warehouse is a name: no storage setting, the catalog vends them per table
    assert pyiceberg_properties(config, secrets) == {"type": "rest", **shared}
    assert spark_properties(config, secrets) == {"type": "rest", "rest.auth.type": "oauth2", **shared}
    assert spark_s3a_settings(config) == {}


def test_rest_bearer_token_without_vended_credentials():
    config = CatalogConfig(kind="rest", uri="https://dbc-1.cloud.databricks.com/api/2.1/unity-catalog/iceberg-rest",
                           warehouse="main", auth="token", vended_credentials=False)
    secrets = CatalogSecrets(token="dapi-token-value")
    uri = "https://dbc-1.cloud.databricks.com/api/2.1/unity-catalog/iceberg-rest"
    assert pyiceberg_properties(config, secrets) == {"type": "rest", "uri": uri, "warehouse": "main", "token": "dapi-token-value"}
    assert spark_properties(config, secrets) == {"type": "rest", "uri": uri, "warehouse": "main", "rest.auth.type": "oauth2",
                                                 "token": "dapi-token-value"}


def test_rest_glue_endpoint_with_sigv4():
    config = CatalogConfig(kind="rest", uri="https://glue.eu-west-1.amazonaws.com/iceberg", warehouse="123456789012",
                           auth="sigv4", signing_name="glue", region="eu-west-1", storage="s3", s3_region="eu-west-1")
    assert pyiceberg_properties(config, AWS_KEYS) == {
        "type": "rest",
        "uri": "https://glue.eu-west-1.amazonaws.com/iceberg",
        "warehouse": "123456789012",
        "rest.sigv4-enabled": "true",
        "rest.signing-region": "eu-west-1",
        "rest.signing-name": "glue",
        "client.access-key-id": "AKIATEST",
        "client.secret-access-key": "aws-secret-value",
        "client.session-token": "aws-session",
        "header.X-Iceberg-Access-Delegation": "vended-credentials",
        "s3.region": "eu-west-1",
        "s3.access-key-id": "AKIATEST",
        "s3.secret-access-key": "aws-secret-value",
        "s3.session-token": "aws-session",
    }
    # Spark's AWS clients read the keys from the environment (the default chain): none in its settings
    assert spark_properties(config, AWS_KEYS) == {
        "type": "rest",
        "uri": "https://glue.eu-west-1.amazonaws.com/iceberg",
        "warehouse": "123456789012",
        "rest.auth.type": "sigv4",
        "rest.auth.sigv4.delegate-auth-type": "none",
        "rest.signing-region": "eu-west-1",
        "rest.signing-name": "glue",
        "header.X-Iceberg-Access-Delegation": "vended-credentials",
        "io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
        "client.region": "eu-west-1",
    }


def test_rest_s3_tables_endpoint_signs_for_s3tables_and_defaults_to_the_s3_region():
    arn = "arn:aws:s3tables:us-east-2:123456789012:bucket/lake"
    config = CatalogConfig(kind="rest", uri="https://s3tables.us-east-2.amazonaws.com/iceberg", warehouse=arn, auth="sigv4",
                           signing_name="s3tables", s3_region="us-east-2")
    assert pyiceberg_properties(config, NO_SECRETS) == {
        "type": "rest", "uri": "https://s3tables.us-east-2.amazonaws.com/iceberg", "warehouse": arn,
        "rest.sigv4-enabled": "true", "rest.signing-region": "us-east-2", "rest.signing-name": "s3tables",
        "header.X-Iceberg-Access-Delegation": "vended-credentials"}
    assert spark_properties(config, NO_SECRETS) == {
        "type": "rest", "uri": "https://s3tables.us-east-2.amazonaws.com/iceberg", "warehouse": arn,
        "rest.auth.type": "sigv4", "rest.auth.sigv4.delegate-auth-type": "none", "rest.signing-region": "us-east-2",
        "rest.signing-name": "s3tables", "header.X-Iceberg-Access-Delegation": "vended-credentials"}


def test_rest_auth_none_is_explicit_for_spark():
    uri = "http://nessie:19120/iceberg"
    config = CatalogConfig(kind="rest", uri=uri, warehouse="warehouse", auth="none", vended_credentials=False)
    assert pyiceberg_properties(config, NO_SECRETS) == {"type": "rest", "uri": uri, "warehouse": "warehouse"}
    assert spark_properties(config, NO_SECRETS) == {"type": "rest", "uri": uri, "warehouse": "warehouse",
                                                    "rest.auth.type": "none"}


def test_glue():
    config = CatalogConfig(kind="glue", name="glue", warehouse="s3://lake/warehouse", s3_region="eu-west-1",
                           properties={"glue.id": "123456789012", "glue.skip-archive": "true"})
    assert pyiceberg_properties(config, AWS_KEYS) == {
        "type": "glue",
        "warehouse": "s3://lake/warehouse",
        "glue.region": "eu-west-1",
        "client.access-key-id": "AKIATEST",
        "client.secret-access-key": "aws-secret-value",
        "client.session-token": "aws-session",
        "s3.region": "eu-west-1",
        "s3.access-key-id": "AKIATEST",
        "s3.secret-access-key": "aws-secret-value",
        "s3.session-token": "aws-session",
        "glue.id": "123456789012",
        "glue.skip-archive": "true",
    }
    assert spark_properties(config, AWS_KEYS) == {
        "type": "glue",
        "warehouse": "s3://lake/warehouse",
        "client.region": "eu-west-1",
        "io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
        "glue.id": "123456789012",
        "glue.skip-archive": "true",
    }


def test_hive_on_hdfs_gets_no_s3_setting():
    config = CatalogConfig(kind="hive", uri="thrift://metastore:9083", warehouse="hdfs://namenode:8020/warehouse",
                           properties={"hive.kerberos-authentication": "true"})
    expected = {"type": "hive", "uri": "thrift://metastore:9083", "warehouse": "hdfs://namenode:8020/warehouse",
                "hive.kerberos-authentication": "true"}
    assert pyiceberg_properties(config, AWS_KEYS) == expected
    assert spark_properties(config, AWS_KEYS) == expected
    assert spark_s3a_settings(config) == {}


@pytest.mark.parametrize("warehouse", ["gs://lake/warehouse", "abfss://lake@account.dfs.core.windows.net/warehouse",
                                       "hdfs://namenode:8020/warehouse", "file:///srv/warehouse", "/srv/warehouse"])
def test_storage_other_than_s3_gets_no_s3_setting(warehouse):
    config = CatalogConfig(kind="sql", uri="postgresql://db/iceberg", warehouse=warehouse, s3_region="eu-west-1")
    secrets = CatalogSecrets(user="u", password="pw", aws_access_key_id="AKIATEST", aws_secret_access_key="aws-secret")
    for props in (pyiceberg_properties(config, secrets), spark_properties(config, secrets)):
        assert not any(k.startswith(("s3.", "client.")) or k == "io-impl" for k in props), props
    assert spark_s3a_settings(config) == {}


def test_explicit_storage_s3_adds_s3_settings_to_a_named_warehouse():
    config = CatalogConfig(kind="rest", uri="https://lakekeeper/catalog", warehouse="prod", storage="s3", s3_region="eu-west-1")
    assert pyiceberg_properties(config, NO_SECRETS)["s3.region"] == "eu-west-1"
    assert spark_properties(config, NO_SECRETS)["io-impl"] == "org.apache.iceberg.aws.s3.S3FileIO"


def test_pass_through_maps_are_applied_last_and_to_one_client_each():
    config = CatalogConfig(kind="rest", uri="http://rest", warehouse="s3://w/h",
                           properties={"s3.sse.type": "kms", "client.region": "x"},
                           pyiceberg={"py-io-impl": "pyiceberg.io.fsspec.FsspecFileIO"}, spark={"cache-enabled": "false"})
    py = pyiceberg_properties(config, NO_SECRETS)
    spark = spark_catalog_settings(config, NO_SECRETS)
    assert py["s3.sse.type"] == "kms" and py["client.region"] == "x" and py["py-io-impl"] == "pyiceberg.io.fsspec.FsspecFileIO"
    assert "cache-enabled" not in py
    assert spark["spark.sql.catalog.lakeops.s3.sse.type"] == "kms"
    assert spark["spark.sql.catalog.lakeops.client.region"] == "x"
    assert spark["spark.sql.catalog.lakeops.cache-enabled"] == "false"
    assert not any("py-io-impl" in k for k in spark)


def test_s3a_settings_follow_the_storage_and_carry_no_keys():
    config = CatalogConfig(kind="rest", uri="http://rest", warehouse="s3://w", s3_endpoint="http://minio:9000",
                           s3_region="eu-west-1")
    assert spark_s3a_settings(config) == {
        "spark.hadoop.fs.s3.impl": "org.apache.hadoop.fs.s3a.S3AFileSystem",
        "spark.hadoop.fs.s3a.aws.credentials.provider":
            "software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider,"
            "software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider",
        "spark.hadoop.fs.s3a.endpoint.region": "eu-west-1",
        "spark.hadoop.fs.s3a.endpoint": "http://minio:9000",
        "spark.hadoop.fs.s3a.path.style.access": "true",
    }
    aws = spark_s3a_settings(CatalogConfig(kind="glue", warehouse="s3://w"))
    assert "spark.hadoop.fs.s3a.endpoint" not in aws and aws["spark.hadoop.fs.s3a.endpoint.region"] == "us-east-1"


def test_virtual_host_addressing_with_an_endpoint():
    config = CatalogConfig(kind="rest", uri="http://rest", warehouse="s3://w", s3_endpoint="https://s3.example.com",
                           s3_path_style_access=False)
    assert spark_properties(config, NO_SECRETS)["s3.path-style-access"] == "false"
    assert pyiceberg_properties(config, NO_SECRETS)["s3.force-virtual-addressing"] == "true"


def test_an_empty_region_is_left_out():
    config = CatalogConfig(kind="rest", uri="http://rest", warehouse="s3://w", s3_region="")
    assert "s3.region" not in pyiceberg_properties(config, NO_SECRETS)
    assert "client.region" not in spark_properties(config, NO_SECRETS)


def test_spark_ui_masks_the_oauth2_credential():
    assert spark_session_settings() == {"spark.redaction.regex": r"(?i)secret|password|token|access[.]?key|credential"}
