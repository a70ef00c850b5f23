"""lakeops.catalogs.config: the catalog block's defaults, validation and storage inference."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from lakeops.catalogs.config import CatalogConfig
from lakeops.exceptions import ConfigError


def test_defaults_are_the_embedded_catalog():
    config = CatalogConfig()
    assert (config.kind, config.name, config.namespace, config.data_dir) == ("embedded", "lakeops", "lakeops", ".lakeops")
    assert config.sqlite_path == Path(".lakeops") / "catalog.db"
    assert CatalogConfig(data_dir="/srv/lake").warehouse_location == "file:///srv/lake/warehouse"
    assert config.storage_kind == "local"
    assert config.vended_credentials is True
    assert (config.properties, config.pyiceberg, config.spark) == ({}, {}, {})


def test_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        CatalogConfig().kind = "rest"  # type: ignore[misc]


def test_empty_values_from_unset_variables_read_as_unset():
    config = CatalogConfig(kind="embedded", uri="", warehouse="", s3_endpoint="", conn_id="", auth="")
    assert (config.uri, config.warehouse, config.s3_endpoint, config.conn_id, config.auth) == (None, None, None, None, None)


def test_multi_level_namespace():
    assert CatalogConfig(namespace="analytics.web").namespace == "analytics.web"


@pytest.mark.parametrize(("settings", "message"), [
    ({"kind": "nessie"}, r"catalog.kind: 'nessie' is not supported; use one of embedded, sql, rest, glue, hive"),
    ({"name": "prod-1"}, r"catalog.name: 'prod-1' is not a valid name"),
    ({"namespace": "analytics..web"}, r"catalog.namespace: '' is not a valid name"),
    ({"kind": "sql", "warehouse": "s3://w"}, r"catalog.uri: required when catalog.kind is 'sql'; set it to the catalog database"),
    ({"kind": "sql", "uri": "postgresql://db/ice"}, r"catalog.warehouse: required when catalog.kind is 'sql'"),
    ({"kind": "sql", "uri": "mysql://db/ice", "warehouse": "s3://w"}, r"catalog.uri: 'mysql://db/ice' is a 'mysql' database"),
    ({"kind": "rest", "warehouse": "s3://w"}, r"catalog.uri: required when catalog.kind is 'rest'"),
    ({"kind": "rest", "uri": "http://rest"}, r"catalog.warehouse: required when catalog.kind is 'rest'"),
    ({"kind": "rest", "uri": "thrift://hms:9083", "warehouse": "w"}, r"catalog.uri: 'thrift://hms:9083' is not an HTTP endpoint"),
    ({"kind": "hive", "uri": "http://hms"}, r"catalog.uri: 'http://hms' is not a Hive metastore address; use thrift://host:9083"),
    ({"kind": "hive"}, r"catalog.uri: required when catalog.kind is 'hive'"),
    ({"kind": "glue", "uri": "https://glue"}, r"catalog.uri: 'https://glue' is not used by a Glue catalog; .* glue.endpoint"),
    ({"kind": "glue", "warehouse": "s3://w", "region": "eu-west-1"},
     r"catalog.region: 'eu-west-1' differs from catalog.s3_region"),
    ({"kind": "sql", "uri": "sqlite:////c.db", "warehouse": "/w", "auth": "oauth2"},
     r"catalog.auth: 'oauth2' applies to REST catalogs only"),
    ({"kind": "rest", "uri": "http://r", "warehouse": "w", "auth": "basic"},
     r"catalog.auth: 'basic' is not supported; use one of none"),
    ({"kind": "rest", "uri": "http://r", "warehouse": "w", "scope": "x"}, r"catalog.scope: 'x' applies to auth oauth2 only"),
    ({"kind": "rest", "uri": "http://r", "warehouse": "w", "auth": "oauth2", "signing_name": "glue"},
     r"catalog.signing_name: 'glue' applies to auth sigv4 only"),
    ({"kind": "rest", "uri": "http://r", "warehouse": "w", "storage": "ftp"}, r"catalog.storage: 'ftp' is not supported"),
    ({"kind": "rest", "uri": "http://r", "warehouse": "s3://w", "storage": "gcs"},
     r"catalog.storage: 'gcs' contradicts catalog.warehouse 's3://w' \(on s3\)"),
    ({"kind": "hive", "uri": "thrift://h:9083", "warehouse": "gs://w", "s3_endpoint": "http://minio"},
     r"catalog.s3_endpoint: 'http://minio' applies to S3 storage, but the warehouse 'gs://w' is on gcs"),
    ({"properties": {"cache-enabled": 1}}, r"catalog.properties.cache-enabled: 1 must be a string"),
    ({"properties": {"uri": "x"}}, r"catalog.properties.uri: set by catalog.kind, catalog.uri and catalog.warehouse"),
    ({"spark": {"spark.sql.catalog.x.type": "rest"}},
     r"catalog.spark.spark.sql.catalog.x.type: catalog.spark takes catalog properties"),
])
def test_bad_values_name_the_key_the_value_and_the_fix(settings, message):
    with pytest.raises(ConfigError, match=message):
        CatalogConfig(**settings)


@pytest.mark.parametrize("key", ["credential", "token", "jdbc.password", "s3.secret-access-key", "s3.session-token",
                                 "gcs.oauth2.token", "adls.sas-token.account", "adls.account-key", "header.Authorization",
                                 "rest.secret-access-key", "client.secret-access-key"])
@pytest.mark.parametrize("section", ["properties", "pyiceberg", "spark"])
def test_secrets_in_pass_through_maps_are_refused(section, key):
    with pytest.raises(ConfigError, match=rf"catalog.{section}.{key}: a secret does not go in the config file; put it in "
                                          r"the Airflow connection named by catalog.conn_id or in the environment"):
        CatalogConfig(**{section: {key: "x"}})


@pytest.mark.parametrize("key", ["client.credentials-provider", "gcs.oauth2.token-expires-at", "s3.access-key-id",
                                 "token-refresh-enabled", "glue.id"])
def test_non_secret_keys_pass(key):
    assert CatalogConfig(properties={key: "x"}).properties == {key: "x"}


def test_password_in_the_database_url_is_refused_without_echoing_it():
    with pytest.raises(ConfigError) as info:
        CatalogConfig(kind="sql", uri="postgresql://ice:hunter22@db/iceberg", warehouse="s3://w")
    assert "hunter22" not in str(info.value)
    assert "postgresql://ice:***@db/iceberg" in str(info.value)
    assert "LAKEOPS_CATALOG_PASSWORD" in str(info.value)


@pytest.mark.parametrize(("settings", "storage"), [
    ({"kind": "rest", "uri": "http://r", "warehouse": "s3://w"}, "s3"),
    ({"kind": "rest", "uri": "http://r", "warehouse": "s3a://w"}, "s3"),
    ({"kind": "rest", "uri": "http://r", "warehouse": "prod"}, None),
    ({"kind": "rest", "uri": "http://r", "warehouse": "prod", "s3_endpoint": "http://minio"}, "s3"),
    ({"kind": "rest", "uri": "http://r", "warehouse": "prod", "storage": "gcs"}, "gcs"),
    ({"kind": "glue"}, None),
    ({"kind": "hive", "uri": "thrift://h:9083", "warehouse": "gs://w"}, "gcs"),
    ({"kind": "hive", "uri": "thrift://h:9083", "warehouse": "abfss://c@a.dfs.core.windows.net/w"}, "adls"),
    ({"kind": "hive", "uri": "thrift://h:9083", "warehouse": "hdfs://nn:8020/w"}, "hdfs"),
    ({"kind": "sql", "uri": "sqlite:////c.db", "warehouse": "/srv/w"}, "local"),
    ({"kind": "sql", "uri": "sqlite:////c.db", "warehouse": "file:///srv/w"}, "local"),
])
def test_storage_is_taken_from_the_warehouse(settings, storage):
    assert CatalogConfig(**settings).storage_kind == storage


def test_a_warehouse_name_is_no_location():
    config = CatalogConfig(kind="rest", uri="http://r", warehouse="prod")
    with pytest.raises(ConfigError, match=r"catalog.warehouse: 'prod' is not a storage location"):
        _ = config.warehouse_location
    assert CatalogConfig(kind="rest", uri="http://r", warehouse="s3://w/h").warehouse_location == "s3://w/h"


def test_the_config_loader_builds_it_from_yaml_data(tmp_path):
    """The loader of lakeops.config (_build) takes this class as the catalog section: keys, types, env references."""
    from lakeops.config.build import build as _build

    config = _build(CatalogConfig, {"kind": "rest", "uri": "http://r", "warehouse": "prod", "auth": "oauth2",
                                    "conn_id": "polaris", "properties": {"scope-x": "y"}}, "catalog")
    assert config == CatalogConfig(kind="rest", uri="http://r", warehouse="prod", auth="oauth2", conn_id="polaris",
                                   properties={"scope-x": "y"})
    with pytest.raises(ConfigError, match=r"catalog: unknown key 'kindd'"):
        _build(CatalogConfig, {"kindd": "rest"}, "catalog")
