"""The catalog block of the config file: which catalog, where its tables live, how to reach it.

One frozen dataclass, validated on construction; unknown keys are rejected by the config loader
and bad values raise ConfigError naming the key, the value and the fix. Secrets never live here:
`conn_id` names an Airflow connection and the environment holds the rest (lakeops.catalogs.secrets).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from lakeops.exceptions import ConfigError
from lakeops.tables.identifier import validate_name

KINDS = ("embedded", "sql", "rest", "glue", "hive")
STORAGES = ("s3", "gcs", "adls", "hdfs", "local")
AUTHS = ("none", "oauth2", "token", "sigv4")

SCHEME_STORAGE = {"s3": "s3", "s3a": "s3", "s3n": "s3", "gs": "gcs", "gcs": "gcs", "abfs": "adls", "abfss": "adls",
                  "wasb": "adls", "wasbs": "adls", "hdfs": "hdfs", "viewfs": "hdfs", "file": "local"}
"""Warehouse URI scheme -> the storage it names."""

SECRET_KEY = re.compile(r"(?i)(secret|password|authorization|sas-token|account-key|(^|[.-])(credential|token)$)")
"""Catalog property names whose values are secrets (credential, token, jdbc.password, s3.secret-access-key, ...)."""
OWNED_KEYS = ("type", "uri", "warehouse")
"""Properties set from the fields of this block only, never from a pass-through map."""

CATALOG_KINDS = KINDS
"""The name lakeops.config exports."""


def _namespace(value: str) -> None:
    """A namespace may have several levels (analytics.web); each level is a plain name."""
    if not isinstance(value, str):
        raise ConfigError(f"catalog.namespace: {value!r} must be a string, e.g. analytics or analytics.web")
    for level in value.split("."):
        validate_name(level, "catalog.namespace")


def storage_of_location(location: str | None) -> str | None:
    """The storage a location names by its scheme (an absolute path is local); None for a name that is no location."""
    if not location:
        return None
    if location.startswith("/"):
        return "local"
    return SCHEME_STORAGE.get(urlparse(location).scheme.lower()) if "://" in location or location.startswith("file:") else None


@dataclass(frozen=True)
class CatalogConfig:
    """One catalog, reached by pyiceberg and by Spark alike (lakeops.catalogs.mapping derives both clients' settings)."""

    kind: str = "embedded"
    """embedded (SQLite + local disk under data_dir), sql (PostgreSQL or SQLite), rest, glue or hive."""
    name: str = "lakeops"
    """The catalog's name in Spark (spark.sql.catalog.<name>) and in pyiceberg."""
    namespace: str = "lakeops"
    """The default namespace of bare table names."""
    data_dir: str = ".lakeops"
    """embedded: where catalog.db and warehouse/ live."""
    uri: str | None = None
    """sql: the database (postgresql://host:5432/db, its SQLAlchemy or JDBC form, or sqlite:////path);
    rest: the catalog's endpoint; hive: the metastore (thrift://host:9083); glue: not used."""
    warehouse: str | None = None
    """Where new tables go (s3://bucket/path, gs://, abfss://, hdfs://, file:///); for a REST catalog the
    warehouse it serves (a Polaris or Unity catalog name, an account id for Glue, a table bucket ARN for S3 Tables)."""
    s3_endpoint: str | None = None
    """An S3-compatible endpoint (MinIO, S3Proxy); unset for AWS S3. Setting it means the data is on S3."""
    s3_region: str = "us-east-1"
    """The region of the S3 buckets (pyiceberg's s3.region, Spark's client.region)."""
    s3_path_style_access: bool = True
    """With s3_endpoint: path-style requests (bucket in the path), as most S3-compatible servers want."""
    storage: str | None = None
    """s3, gcs, adls, hdfs or local; unset: taken from the warehouse's scheme, or none when the warehouse is a
    name (the REST catalog then hands out the storage settings). S3 settings are added only for s3."""
    region: str | None = None
    """AWS region of the catalog service (Glue; SigV4 signing of a REST catalog); default s3_region."""
    auth: str | None = None
    """rest: none, oauth2 (client credentials), token (bearer) or sigv4 (AWS signing); unset: none."""
    oauth2_server_uri: str | None = None
    """auth oauth2: the token endpoint (Keycloak, Polaris' /v1/oauth/tokens, ...)."""
    scope: str | None = None
    """auth oauth2: the scope asked for (Polaris: PRINCIPAL_ROLE:ALL; default: catalog)."""
    signing_name: str | None = None
    """auth sigv4: the service signed for: glue (Glue's REST endpoint), s3tables (S3 Tables), execute-api (default)."""
    vended_credentials: bool = True
    """rest: ask the catalog for short-lived storage credentials per table (X-Iceberg-Access-Delegation)."""
    conn_id: str | None = None
    """An Airflow connection holding this catalog's secrets, read when a task runs (lakeops.catalogs.secrets)."""
    properties: dict[str, str] = field(default_factory=dict)
    """Catalog properties both clients take under the same name (glue.id, s3.sse.type, ...), applied last."""
    pyiceberg: dict[str, str] = field(default_factory=dict)
    """Properties for pyiceberg's load_catalog only, applied last."""
    spark: dict[str, str] = field(default_factory=dict)
    """Properties for Spark only, without the spark.sql.catalog.<name>. prefix (e.g. cache-enabled), applied last."""

    def __post_init__(self) -> None:
        for key in ("uri", "warehouse", "s3_endpoint", "storage", "region", "auth", "oauth2_server_uri", "scope",
                    "signing_name", "conn_id"):
            if getattr(self, key) == "":
                object.__setattr__(self, key, None)  # an unset ${VAR:-} in the file
        if self.kind not in KINDS:
            raise ConfigError(f"catalog.kind: {self.kind!r} is not supported; use one of {', '.join(KINDS)}")
        validate_name(self.name, "catalog.name")
        _namespace(self.namespace)
        getattr(self, f"_check_{self.kind}")()
        self._check_auth()
        self._check_storage()
        for key in ("properties", "pyiceberg", "spark"):
            self._check_pass_through(key)

    def _check_embedded(self) -> None:
        pass  # uri, warehouse and s3_* may hold the values of another kind (${VAR:-} in the file): not used

    def _check_sql(self) -> None:
        self._require("uri", "the catalog database, e.g. postgresql://db.internal:5432/iceberg")
        self._require("warehouse", "where new tables go, e.g. s3://bucket/warehouse")
        from lakeops.catalogs.urls import parse_database_url

        parse_database_url(self.uri or "")

    def _check_rest(self) -> None:
        self._require("uri", "the REST catalog's endpoint, e.g. https://polaris.internal/api/catalog")
        self._require("warehouse", "the warehouse the catalog serves (a name or s3://bucket/path)")
        if urlparse(self.uri or "").scheme not in ("http", "https"):
            raise ConfigError(f"catalog.uri: {self.uri!r} is not an HTTP endpoint; a REST catalog is reached over "
                              "http:// or https://, e.g. https://polaris.internal/api/catalog")

    def _check_glue(self) -> None:
        if self.uri:
            raise ConfigError(f"catalog.uri: {self.uri!r} is not used by a Glue catalog; remove it (a Glue endpoint "
                              "override goes in catalog.properties as glue.endpoint)")
        if self.region and self.s3_region and self.region != self.s3_region and self.on_s3:
            raise ConfigError(f"catalog.region: {self.region!r} differs from catalog.s3_region {self.s3_region!r}, but "
                              "Spark's Glue and S3 clients share one region (client.region); set both to the region "
                              "of the Glue catalog and its bucket, or leave region unset")

    def _check_hive(self) -> None:
        self._require("uri", "the Hive metastore, e.g. thrift://metastore.internal:9083")
        if not all(u.strip().startswith("thrift://") for u in (self.uri or "").split(",")):
            raise ConfigError(f"catalog.uri: {self.uri!r} is not a Hive metastore address; use thrift://host:9083 "
                              "(several separated by commas)")

    def _require(self, key: str, what: str) -> None:
        if not getattr(self, key):
            raise ConfigError(f"catalog.{key}: required when catalog.kind is {self.kind!r}; set it to {what}")

    def _check_auth(self) -> None:
        if self.auth is not None and self.kind != "rest":
            raise ConfigError(f"catalog.auth: {self.auth!r} applies to REST catalogs only (kind is {self.kind!r}); "
                              "remove it: this kind's credentials come from catalog.conn_id or the environment")
        if self.auth is not None and self.auth not in AUTHS:
            raise ConfigError(f"catalog.auth: {self.auth!r} is not supported; use one of {', '.join(AUTHS)}")
        for key, needs in (("oauth2_server_uri", "oauth2"), ("scope", "oauth2"), ("signing_name", "sigv4")):
            if getattr(self, key) is not None and self.auth != needs:
                raise ConfigError(f"catalog.{key}: {getattr(self, key)!r} applies to auth {needs} only "
                                  f"(auth is {self.auth!r}); set catalog.auth: {needs} or remove it")

    def _check_storage(self) -> None:
        if self.kind == "embedded":
            return
        if self.storage is not None and self.storage not in STORAGES:
            raise ConfigError(f"catalog.storage: {self.storage!r} is not supported; use one of {', '.join(STORAGES)}, "
                              "or leave it unset to take it from the warehouse's scheme")
        named = storage_of_location(self.warehouse)
        if self.storage and named and named != self.storage:
            raise ConfigError(f"catalog.storage: {self.storage!r} contradicts catalog.warehouse {self.warehouse!r} "
                              f"(on {named}); leave storage unset or make them agree")
        declared = self.storage or named
        if self.s3_endpoint and declared not in (None, "s3"):
            raise ConfigError(f"catalog.s3_endpoint: {self.s3_endpoint!r} applies to S3 storage, but the warehouse "
                              f"{self.warehouse!r} is on {declared}; remove s3_endpoint")

    def _check_pass_through(self, key: str) -> None:
        mapping = getattr(self, key)
        for prop, value in mapping.items():
            if not isinstance(value, str):
                raise ConfigError(f"catalog.{key}.{prop}: {value!r} must be a string; quote it in the YAML file")
            if SECRET_KEY.search(prop):
                raise ConfigError(f"catalog.{key}.{prop}: a secret does not go in the config file; put it in the Airflow "
                                  "connection named by catalog.conn_id or in the environment (docs/catalogs.md, Secrets)")
            if prop in OWNED_KEYS:
                raise ConfigError(f"catalog.{key}.{prop}: set by catalog.kind, catalog.uri and catalog.warehouse; "
                                  "set those instead")
            if key == "spark" and prop.startswith("spark."):
                raise ConfigError(f"catalog.spark.{prop}: catalog.spark takes catalog properties without the "
                                  f"spark.sql.catalog.{self.name}. prefix; Spark settings go in spark.conf")

    @property
    def storage_kind(self) -> str | None:
        """s3, gcs, adls, hdfs, local, or None when the catalog hands out the storage settings."""
        if self.kind == "embedded":
            return "local"
        if self.storage:
            return self.storage
        if self.s3_endpoint:
            return "s3"
        return storage_of_location(self.warehouse)

    @property
    def on_s3(self) -> bool:
        return self.storage_kind == "s3"

    @property
    def sqlite_path(self) -> Path:
        """embedded: the SQLite file both clients share."""
        return Path(self.data_dir) / "catalog.db"

    @property
    def warehouse_location(self) -> str:
        """The warehouse as a storage location (embedded: data_dir/warehouse). Raises when the warehouse is a name."""
        if self.kind == "embedded":
            return (Path(self.data_dir) / "warehouse").as_uri()
        if not self.warehouse or storage_of_location(self.warehouse) is None:
            raise ConfigError(f"catalog.warehouse: {self.warehouse!r} is not a storage location (s3://, gs://, abfss://, "
                              "hdfs://, file://), and a location under the warehouse was needed; set the location "
                              "explicitly where it is asked for (e.g. streaming.checkpoint_location)")
        return self.warehouse
