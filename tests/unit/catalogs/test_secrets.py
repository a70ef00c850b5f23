"""lakeops.catalogs.secrets: the environment first, the Airflow connection for what is missing, read only then."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lakeops.catalogs.config import CatalogConfig
from lakeops.catalogs.secrets import CatalogSecrets, environment, from_connection, needed, resolve
from lakeops.exceptions import ConfigError

POLARIS = CatalogConfig(kind="rest", uri="https://polaris/api/catalog", warehouse="prod", auth="oauth2", conn_id="polaris")
POSTGRES = CatalogConfig(kind="sql", uri="postgresql://db/iceberg", warehouse="s3://w", conn_id="catalog_db")


class Connections:
    """Connections by id, counting reads: a stand-in for Airflow's lookup in pure tests."""

    def __init__(self, **connections: tuple[str | None, str | None, dict]):
        self.connections = connections
        self.reads: list[str] = []

    def __call__(self, conn_id: str) -> tuple[str | None, str | None, dict]:
        self.reads.append(conn_id)
        return self.connections[conn_id]


def test_needed_secrets_per_kind():
    assert needed(POLARIS) == ("credential",)
    assert needed(CatalogConfig(kind="rest", uri="http://r", warehouse="w", auth="token")) == ("token",)
    assert needed(CatalogConfig(kind="rest", uri="http://r", warehouse="w")) == ()
    assert needed(POSTGRES) == ("user", "password")
    assert needed(CatalogConfig(kind="sql", uri="postgresql://reader@db/iceberg", warehouse="s3://w")) == ("password",)
    assert needed(CatalogConfig(kind="sql", uri="sqlite:////c.db", warehouse="/w")) == ()
    assert needed(CatalogConfig(kind="glue")) == ()
    assert needed(CatalogConfig(kind="glue", conn_id="aws")) == ("aws_access_key_id", "aws_secret_access_key")
    assert needed(CatalogConfig()) == ()


def test_connection_fields_per_kind():
    assert from_connection(POLARIS, "client-id", "client-secret", {}) == CatalogSecrets(credential="client-id:client-secret")
    assert from_connection(POLARIS, None, None, {"credential": "a:b"}) == CatalogSecrets(credential="a:b")
    token = CatalogConfig(kind="rest", uri="http://r", warehouse="w", auth="token")
    assert from_connection(token, None, "bearer-value", {}) == CatalogSecrets(token="bearer-value")
    assert from_connection(token, None, "ignored", {"token": "from-extra"}) == CatalogSecrets(token="from-extra")
    assert from_connection(POSTGRES, "iceberg", "db-pw", {}) == CatalogSecrets(user="iceberg", password="db-pw")
    assert from_connection(CatalogConfig(kind="glue"), "AKIA", "aws-secret", {"aws_session_token": "sess"}) == CatalogSecrets(
        aws_access_key_id="AKIA", aws_secret_access_key="aws-secret", aws_session_token="sess")
    extra = {"aws_access_key_id": "AKIA", "aws_secret_access_key": "s3-secret"}
    assert from_connection(POSTGRES, "u", "p", extra) == CatalogSecrets(user="u", password="p", aws_access_key_id="AKIA",
                                                                         aws_secret_access_key="s3-secret")


def test_environment_wins_and_the_connection_is_not_read_when_nothing_is_missing():
    connections = Connections(polaris=("other", "other-secret", {}))
    found = resolve(POLARIS, {"LAKEOPS_CATALOG_CREDENTIAL": "env-id:env-secret"}, connections)
    assert found.credential == "env-id:env-secret"
    assert connections.reads == []


def test_connection_fills_what_the_environment_lacks():
    connections = Connections(catalog_db=("iceberg", "db-pw", {}))
    found = resolve(POSTGRES, {"AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env-secret"}, connections)
    assert found == CatalogSecrets(user="iceberg", password="db-pw", aws_access_key_id="AKIAENV",
                                   aws_secret_access_key="env-secret")
    assert connections.reads == ["catalog_db"]


def test_a_missing_secret_names_the_variable_and_the_connection():
    with pytest.raises(ConfigError, match=r"a rest catalog with auth oauth2 needs a credential; set LAKEOPS_CATALOG_CREDENTIAL"):
        resolve(CatalogConfig(kind="rest", uri="http://r", warehouse="w", auth="oauth2"), {})
    with pytest.raises(ConfigError, match=r"Airflow connection 'catalog_db' holds no password for a sql catalog"):
        resolve(POSTGRES, {}, Connections(catalog_db=("iceberg", None, {})))


def test_secrets_never_show_in_repr_or_str():
    secrets = CatalogSecrets(credential="id:very-secret", password="db-pw-secret")
    for text in (repr(secrets), str(secrets), f"{secrets}", repr([secrets])):
        assert "very-secret" not in text and "db-pw-secret" not in text
    assert repr(secrets) == "CatalogSecrets(set: credential, password)"


def test_environment_for_spark_submit():
    secrets = CatalogSecrets(credential="id:s", user="u", password="p", aws_session_token="t")
    assert environment(secrets) == {"LAKEOPS_CATALOG_CREDENTIAL": "id:s", "LAKEOPS_CATALOG_USER": "u",
                                    "LAKEOPS_CATALOG_PASSWORD": "p", "AWS_SESSION_TOKEN": "t"}
    from_env = resolve(POSTGRES, environment(CatalogSecrets(user="u", password="p")), Connections())
    assert from_env == CatalogSecrets(user="u", password="p")


def _run(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **env})


def test_environment_alone_works_without_importing_airflow():
    code = ("import sys, json\n"
            "sys.modules['airflow'] = None  # an import of airflow now fails, as where it is not installed\n"
            "from lakeops.catalogs.config import CatalogConfig\n"
            "from lakeops.catalogs.secrets import resolve\n"
            "c = CatalogConfig(kind='sql', uri='postgresql://db/iceberg', warehouse='s3://w', conn_id='catalog_db')\n"
            "print(json.dumps(resolve(c).items()))\n")
    done = _run(code, {"LAKEOPS_CATALOG_USER": "u", "LAKEOPS_CATALOG_PASSWORD": "pw"})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"user": "u", "password": "pw"}


def test_importing_and_mapping_the_catalog_reads_no_connection_and_imports_no_airflow():
    """What a DAG file may do at parse time (build the config) touches neither Airflow nor a connection."""
    code = ("import sys\n"
            "import lakeops.catalog, lakeops.catalogs.mapping\n"
            "from lakeops.catalogs.config import CatalogConfig\n"
            "from lakeops.catalogs.mapping import pyiceberg_properties\n"
            "from lakeops.catalogs.secrets import CatalogSecrets\n"
            "c = CatalogConfig(kind='rest', uri='http://r', warehouse='w', auth='oauth2', conn_id='polaris')\n"
            "pyiceberg_properties(c, CatalogSecrets())\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('airflow', 'pyspark', 'boto3')))\n")
    done = _run(code, {})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
