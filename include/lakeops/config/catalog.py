"""The catalog section of the config file: lakeops.catalogs.config's CatalogConfig (every kind both clients
support, its storage, authentication and pass-through properties), under the name the config package exports."""

from __future__ import annotations

from lakeops.catalogs.config import CATALOG_KINDS, CatalogConfig

__all__ = ["CATALOG_KINDS", "CatalogConfig"]
