"""One catalog, two clients: the Spark catalog settings and the pyiceberg catalog properties
are derived from the same CatalogConfig, so both always point at the same tables.

Embedded: Iceberg's JdbcCatalog (Spark) and pyiceberg's SqlCatalog share one SQLite file.
REST: both talk to the same REST catalog, with S3FileIO / pyarrow's S3 file system.
S3 credentials come from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), never the config file.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from typing import TYPE_CHECKING

from lakeops.config import CatalogConfig

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog

SPARK_EXTENSIONS = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"


def spark_catalog_conf(catalog: CatalogConfig) -> dict[str, str]:
    """Spark settings that register the catalog under catalog.name and make it the default."""
    prefix = f"spark.sql.catalog.{catalog.name}"
    conf = {
        "spark.sql.extensions": SPARK_EXTENSIONS,
        prefix: "org.apache.iceberg.spark.SparkCatalog",
        f"{prefix}.warehouse": catalog.warehouse_location,
        "spark.sql.defaultCatalog": catalog.name,
    }
    if catalog.kind == "embedded":
        conf[f"{prefix}.type"] = "jdbc"
        conf[f"{prefix}.uri"] = f"jdbc:sqlite:{catalog.sqlite_path}"
        # V1 adds the view column pyiceberg ignores; both clients read and write the same rows.
        conf[f"{prefix}.jdbc.schema-version"] = "V1"
    else:
        assert catalog.uri is not None
        conf[f"{prefix}.type"] = "rest"
        conf[f"{prefix}.uri"] = catalog.uri
        conf[f"{prefix}.io-impl"] = "org.apache.iceberg.aws.s3.S3FileIO"
        conf[f"{prefix}.client.region"] = catalog.s3_region
        if catalog.s3_endpoint:
            conf[f"{prefix}.s3.endpoint"] = catalog.s3_endpoint
            conf[f"{prefix}.s3.path-style-access"] = str(catalog.s3_path_style_access).lower()
    return conf


def spark_s3_conf(catalog: CatalogConfig) -> dict[str, str]:
    """Hadoop's S3A file system for what Spark reads by path on S3 (landing files, zonemap files):
    s3:// and s3a:// both go to the catalog's object store. Table data does not use it (S3FileIO).
    Keys come from the environment of the driver and of each executor, never from here."""
    if catalog.kind != "rest":
        return {}
    conf = {
        "spark.hadoop.fs.s3.impl": "org.apache.hadoop.fs.s3a.S3AFileSystem",
        "spark.hadoop.fs.s3a.endpoint.region": catalog.s3_region,
        "spark.hadoop.fs.s3a.aws.credentials.provider":
            "software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider,"
            "software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider",
    }
    if catalog.s3_endpoint:
        conf["spark.hadoop.fs.s3a.endpoint"] = catalog.s3_endpoint
        conf["spark.hadoop.fs.s3a.path.style.access"] = str(catalog.s3_path_style_access).lower()
    return conf


def pyiceberg_catalog_props(catalog: CatalogConfig, env: dict[str, str] | None = None) -> dict[str, str]:
    """Properties for pyiceberg.catalog.load_catalog that reach the same catalog as Spark."""
    env = dict(os.environ) if env is None else env
    if catalog.kind == "embedded":
        return {"type": "sql", "uri": f"sqlite:///{catalog.sqlite_path}", "warehouse": catalog.warehouse_location}
    assert catalog.uri is not None
    props = {"type": "rest", "uri": catalog.uri, "warehouse": catalog.warehouse_location, "s3.region": catalog.s3_region}
    if catalog.s3_endpoint:
        props["s3.endpoint"] = catalog.s3_endpoint
        props["s3.force-virtual-addressing"] = str(not catalog.s3_path_style_access).lower()
    for env_key, prop in (("AWS_ACCESS_KEY_ID", "s3.access-key-id"), ("AWS_SECRET_ACCESS_KEY", "s3.secret-access-key")):
        if env.get(env_key):
            props[prop] = env[env_key]
    return props


def ensure_embedded_storage(catalog: CatalogConfig) -> None:
    """SQLite cannot create its file in a missing folder: create the embedded data dir first."""
    if catalog.kind == "embedded":
        catalog.sqlite_path.parent.mkdir(parents=True, exist_ok=True)


def export_s3_endpoint(catalog: CatalogConfig, env: MutableMapping[str, str] | None = None) -> None:
    """Point this process's own S3 clients at the catalog's object store.

    Table data goes through the catalog's FileIO, which gets s3.endpoint above; files lakeops keeps
    beside a table (zonemaps under <table>/_zonemaps/) are opened by location with pyarrow, which
    knows no endpoint but the standard AWS_ENDPOINT_URL and AWS_REGION. An endpoint already set in
    the environment is kept."""
    target: MutableMapping[str, str] = os.environ if env is None else env
    if catalog.kind == "rest" and catalog.s3_endpoint:
        target.setdefault("AWS_ENDPOINT_URL", catalog.s3_endpoint)
        target.setdefault("AWS_REGION", catalog.s3_region)


def load_catalog(catalog: CatalogConfig) -> Catalog:
    """The pyiceberg catalog (metadata reads, cheap commits)."""
    from pyiceberg.catalog import load_catalog as pyiceberg_load_catalog

    ensure_embedded_storage(catalog)
    export_s3_endpoint(catalog)
    return pyiceberg_load_catalog(catalog.name, **pyiceberg_catalog_props(catalog))
