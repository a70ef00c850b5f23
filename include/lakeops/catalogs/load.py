"""The catalog at run time: secrets resolved, both clients' settings derived, the pyiceberg catalog loaded.

Everything here runs when a task or job uses the catalog, never when a DAG file is parsed; secrets
are resolved on each call (lakeops.catalogs.secrets) and only masked settings reach the log.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

from lakeops.catalogs.config import CatalogConfig, storage_of_location
from lakeops.catalogs.fileio import remember_tables
from lakeops.catalogs.mapping import pyiceberg_properties, pyiceberg_s3, spark_catalog_settings, spark_s3a_settings
from lakeops.catalogs.masking import mask_properties, redact
from lakeops.catalogs.secrets import CatalogSecrets, from_env, resolve
from lakeops.exceptions import CatalogError

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog

log = logging.getLogger(__name__)


def ensure_embedded_storage(catalog: CatalogConfig) -> None:
    """SQLite cannot create its file in a missing folder: create the embedded data dir first."""
    if catalog.kind == "embedded":
        catalog.sqlite_path.parent.mkdir(parents=True, exist_ok=True)


def pyiceberg_catalog_props(catalog: CatalogConfig, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """Properties for pyiceberg's load_catalog, with the secrets of env (default: os.environ) or the connection."""
    return pyiceberg_properties(catalog, resolve(catalog, env))


def spark_catalog_conf(catalog: CatalogConfig, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """Spark settings registering the catalog (secrets included: for a session's builder, never for a command line)."""
    return spark_catalog_settings(catalog, resolve(catalog, env))


def spark_s3_conf(catalog: CatalogConfig) -> dict[str, str]:
    """Hadoop S3A settings for paths Spark reads on S3; {} unless the data is on S3."""
    return spark_s3a_settings(catalog)


def storage_props(catalog: CatalogConfig, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """FileIO properties of the catalog's storage alone (no catalog secrets), for processes that only write
    data files, such as Spark executors: S3 settings and keys from env, and the pass-through maps."""
    import os

    return {**pyiceberg_s3(catalog, from_env(os.environ if env is None else env)), **catalog.properties, **catalog.pyiceberg}


def load_catalog(catalog: CatalogConfig, secrets: CatalogSecrets | None = None) -> Catalog:
    """The pyiceberg catalog (metadata reads, cheap commits), remembering each table's FileIO for lakeops' own files."""
    from pyiceberg.catalog import load_catalog as pyiceberg_load_catalog

    ensure_embedded_storage(catalog)
    secrets = resolve(catalog) if secrets is None else secrets
    props = pyiceberg_properties(catalog, secrets)
    log.info("catalog %s (%s): %s", catalog.name, catalog.kind, mask_properties(props, secrets.values()))
    try:
        loaded = pyiceberg_load_catalog(catalog.name, **props)
    except Exception as e:  # its messages may quote the properties: redacted, and not chained
        raise CatalogError(f"catalog {catalog.name!r} ({catalog.kind}, {catalog.uri or catalog.data_dir}) cannot be loaded: "
                           f"{type(e).__name__}: {redact(str(e), secrets.values())}. Check catalog.uri, the network "
                           "and the catalog's secrets (docs/catalogs.md)") from None
    warehouse = catalog.warehouse_location if storage_of_location(props.get("warehouse")) else None
    return remember_tables(loaded, warehouse)


def secret_environment(catalog: CatalogConfig, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The catalog's secrets a child process such as spark-submit would not inherit from env (those read from
    the Airflow connection), as environment variables: it then needs neither Airflow nor the connection, and no
    secret is on its command line. {} when the environment already holds them all."""
    import os

    from lakeops.catalogs.secrets import environment

    env = os.environ if env is None else env
    return {k: v for k, v in environment(resolve(catalog, env)).items() if env.get(k) != v}
