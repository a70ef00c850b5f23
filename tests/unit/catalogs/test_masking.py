"""lakeops.catalogs.masking: no secret survives in what is logged about a catalog."""

from __future__ import annotations

import pytest

from lakeops.catalogs.config import CatalogConfig
from lakeops.catalogs.mapping import pyiceberg_properties, spark_catalog_settings
from lakeops.catalogs.masking import is_secret_key, mask_properties, redact
from lakeops.catalogs.secrets import CatalogSecrets

SECRETS = CatalogSecrets(credential="client-id:cl1ent-s3cret", token="bearer-t0ken", user="iceberg", password="db/p@ss:word",
                         aws_access_key_id="AKIATEST", aws_secret_access_key="aws-s3cret-key", aws_session_token="aws-sess10n")
CONFIGS = [
    CatalogConfig(kind="sql", uri="postgresql://db:5432/iceberg", warehouse="s3://w"),
    CatalogConfig(kind="rest", uri="https://polaris/api/catalog", warehouse="prod", auth="oauth2", storage="s3"),
    CatalogConfig(kind="rest", uri="https://unity/api", warehouse="main", auth="token", storage="s3"),
    CatalogConfig(kind="rest", uri="https://glue.eu-west-1.amazonaws.com/iceberg", warehouse="1234", auth="sigv4", storage="s3"),
    CatalogConfig(kind="glue", warehouse="s3://w"),
    CatalogConfig(kind="hive", uri="thrift://hms:9083", warehouse="s3://w"),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.kind}-{c.auth}")
def test_masked_settings_of_every_kind_hold_no_secret(config):
    for props in (pyiceberg_properties(config, SECRETS), spark_catalog_settings(config, SECRETS)):
        masked = repr(mask_properties(props, SECRETS.values()))
        for secret in SECRETS.values():
            assert secret not in masked
        assert set(mask_properties(props)) == set(props)  # same keys: the reader still sees what was set


def test_masking_by_key_alone_catches_the_known_secret_properties():
    props = pyiceberg_properties(CONFIGS[1], SECRETS) | spark_catalog_settings(CONFIGS[1], SECRETS)
    masked = mask_properties(props)  # no values given
    assert masked["credential"] == "***" and masked["spark.sql.catalog.lakeops.credential"] == "***"
    assert masked["s3.secret-access-key"] == "***" and masked["s3.session-token"] == "***"
    assert masked["uri"] == "https://polaris/api/catalog"


def test_a_password_inside_a_url_is_masked_even_when_unknown():
    assert redact("postgresql+psycopg2://iceberg:unknown-pw@db:5432/iceberg failed") == \
        "postgresql+psycopg2://iceberg:***@db:5432/iceberg failed"
    assert redact("http://host:8181/v1/config") == "http://host:8181/v1/config"


def test_quoted_forms_of_a_secret_are_masked_too():
    assert redact("uri postgresql+psycopg2://u:db%2Fp%40ss%3Aword@h/db, raw db/p@ss:word", ["db/p@ss:word"]) == \
        "uri postgresql+psycopg2://u:***@h/db, raw ***"


@pytest.mark.parametrize(("key", "secret"), [("credential", True), ("token", True), ("jdbc.password", True),
                                             ("spark.sql.catalog.x.jdbc.password", True), ("s3.access-key-id", False),
                                             ("uri", False), ("scope", False), ("client.credentials-provider", False)])
def test_secret_keys(key, secret):
    assert is_secret_key(key) is secret
