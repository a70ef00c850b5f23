"""The catalog functions lakeops' modules call; they live in lakeops.catalogs (see its package docstring)."""

from __future__ import annotations

from lakeops.catalogs.load import (
    ensure_embedded_storage,
    load_catalog,
    pyiceberg_catalog_props,
    secret_environment,
    spark_catalog_conf,
    spark_s3_conf,
    storage_props,
)
from lakeops.catalogs.mapping import SPARK_EXTENSIONS, spark_session_settings

__all__ = ["SPARK_EXTENSIONS", "ensure_embedded_storage", "load_catalog", "pyiceberg_catalog_props", "secret_environment",
           "spark_catalog_conf", "spark_s3_conf", "spark_session_settings", "storage_props"]
