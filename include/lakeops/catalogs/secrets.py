"""A catalog's secrets: from the environment, or from the Airflow connection named by catalog.conn_id.

Never from the config file. The environment wins: a variable that is set is used as is, and the
connection is read only when a secret the catalog needs is still missing. So a process without
Airflow (a Spark driver started by spark-submit, a script) works from the environment alone, and
the connection is read when the catalog is used (a task running), never when a DAG file is parsed.

The Airflow connection's fields, per catalog kind:

=========================  ===========================================================
sql                        login: database user, password: database password
rest, auth oauth2          login: client id, password: client secret (or extra.credential "id:secret")
rest, auth token           password: the bearer token (or extra.token)
glue, rest with sigv4      login / password: AWS access key id / secret access key (extra.aws_session_token)
any kind                   extra.aws_access_key_id / aws_secret_access_key / aws_session_token: S3 keys
=========================  ===========================================================
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from lakeops.catalogs.config import CatalogConfig
from lakeops.exceptions import ConfigError

ENV = {
    "credential": "LAKEOPS_CATALOG_CREDENTIAL",
    "token": "LAKEOPS_CATALOG_TOKEN",
    "user": "LAKEOPS_CATALOG_USER",
    "password": "LAKEOPS_CATALOG_PASSWORD",
    "aws_access_key_id": "AWS_ACCESS_KEY_ID",
    "aws_secret_access_key": "AWS_SECRET_ACCESS_KEY",
    "aws_session_token": "AWS_SESSION_TOKEN",
}
"""Secret -> the environment variable it is read from (and handed to spark-submit in)."""


@dataclass(frozen=True)
class CatalogSecrets:
    """What authenticates lakeops to the catalog and its storage. The repr shows which are set, never a value."""

    credential: str | None = None
    """OAuth2 client credentials, client_id:client_secret."""
    token: str | None = None
    """A bearer token."""
    user: str | None = None
    password: str | None = None
    """The catalog database's password."""
    aws_access_key_id: str | None = None
    aws_secret_access_key: str | None = None
    aws_session_token: str | None = None

    def __repr__(self) -> str:
        held = [f.name for f in fields(self) if getattr(self, f.name)]
        return f"CatalogSecrets(set: {', '.join(held) or 'none'})"

    __str__ = __repr__

    def values(self) -> list[str]:
        """Every secret value held (the user name and the access key id are not secret), and the client secret
        alone, as an OAuth2 token request sends it apart from the client id."""
        held = [v for k, v in self.items().items() if k not in ("user", "aws_access_key_id")]
        if self.credential and ":" in self.credential:
            held.append(self.credential.split(":", 1)[1])
        return held

    def items(self) -> dict[str, str]:
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name)}

    def over(self, other: CatalogSecrets) -> CatalogSecrets:
        """These secrets, with other's filling the ones not set."""
        return replace(other, **self.items())


def from_env(env: Mapping[str, str]) -> CatalogSecrets:
    return CatalogSecrets(**{name: env.get(var) or None for name, var in ENV.items()})


def from_connection(config: CatalogConfig, login: str | None, password: str | None, extra: Mapping[str, Any]) -> CatalogSecrets:
    """Pure: the secrets an Airflow connection's fields hold for this catalog (module docstring)."""
    def text(key: str) -> str | None:
        value = extra.get(key)
        return str(value) if value not in (None, "") else None

    found: dict[str, str | None] = {"aws_access_key_id": text("aws_access_key_id"),
                                    "aws_secret_access_key": text("aws_secret_access_key"),
                                    "aws_session_token": text("aws_session_token"), "token": text("token"),
                                    "credential": text("credential")}
    if config.kind == "sql":
        found.update(user=login or None, password=password or None)
    elif config.kind == "glue" or config.auth == "sigv4":
        found.update(aws_access_key_id=found["aws_access_key_id"] or login or None,
                     aws_secret_access_key=found["aws_secret_access_key"] or password or None)
    elif config.auth == "oauth2" and not found["credential"] and login and password:
        found["credential"] = f"{login}:{password}"
    elif config.auth == "token" and not found["token"]:
        found["token"] = password or None
    return CatalogSecrets(**found)


def needed(config: CatalogConfig) -> tuple[str, ...]:
    """The secrets this catalog cannot work without (others, such as AWS keys, have default chains)."""
    if config.kind == "rest" and config.auth == "oauth2":
        return ("credential",)
    if config.kind == "rest" and config.auth == "token":
        return ("token",)
    if config.kind == "sql":
        from lakeops.catalogs.urls import parse_database_url

        db = parse_database_url(config.uri or "")
        if db.dialect == "postgresql":
            return ("password",) if db.user else ("user", "password")
    if config.conn_id and (config.kind == "glue" or config.auth == "sigv4"):
        return ("aws_access_key_id", "aws_secret_access_key")
    return ()


ConnectionReader = Callable[[str], tuple[str | None, str | None, Mapping[str, Any]]]


def airflow_connection(conn_id: str) -> tuple[str | None, str | None, Mapping[str, Any]]:
    """(login, password, extra) of an Airflow connection, through the Task SDK (env, secrets backends, the API server)."""
    try:
        from airflow.sdk import Connection
    except ImportError as e:
        raise ConfigError(f"catalog.conn_id: {conn_id!r} names an Airflow connection, but Airflow is not installed "
                          "in this process; set the catalog's secrets in the environment instead "
                          f"({', '.join(ENV.values())})") from e
    try:
        conn = Connection.get(conn_id)
    except Exception as e:  # AirflowNotFoundException and backend errors; their text names no secret
        raise ConfigError(f"catalog.conn_id: Airflow connection {conn_id!r} cannot be read ({type(e).__name__}: {e}); "
                          f"create it (airflow connections add {conn_id} ...) or set the secrets in the environment") from None
    return conn.login, conn.password, conn.extra_dejson


def resolve(config: CatalogConfig, env: Mapping[str, str] | None = None,
            read_connection: ConnectionReader | None = None) -> CatalogSecrets:
    """The catalog's secrets: the environment's, then the connection's for what is missing (read only then)."""
    found = from_env(os.environ if env is None else env)
    missing = [name for name in needed(config) if not getattr(found, name)]
    if missing and config.conn_id:
        login, password, extra = (read_connection or airflow_connection)(config.conn_id)
        found = found.over(from_connection(config, login, password, extra))
        missing = [name for name in needed(config) if not getattr(found, name)]
        if missing:
            raise ConfigError(f"catalog.conn_id: Airflow connection {config.conn_id!r} holds no {missing[0]} for a "
                              f"{config.kind} catalog{_auth(config)}; set it there (docs/catalogs.md, Secrets) or in "
                              f"{ENV[missing[0]]}")
    elif missing:
        raise ConfigError(f"catalog: a {config.kind} catalog{_auth(config)} needs a {missing[0]}; set {ENV[missing[0]]} "
                          "in the environment, or name an Airflow connection holding it in catalog.conn_id")
    register_with_airflow(found)
    return found


def _auth(config: CatalogConfig) -> str:
    return f" with auth {config.auth}" if config.auth else ""


def environment(secrets: CatalogSecrets) -> dict[str, str]:
    """The secrets as the environment variables they are read from: what a task hands to spark-submit."""
    return {ENV[name]: value for name, value in secrets.items().items()}


def register_with_airflow(secrets: CatalogSecrets) -> None:
    """Under Airflow, have its log masker hide every secret value (also those combined here, like id:secret)."""
    import sys

    if "airflow" not in sys.modules:
        return
    try:
        from airflow.sdk.log import mask_secret
    except ImportError:
        return
    for value in secrets.values():
        mask_secret(value)
