"""Which tables the index lists and which of them exist, in one catalog call per namespace (never one per
table): the configured tables, those the discovery rules find, and any table with stored health. A catalog
that cannot be listed costs the existence column, not the page."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog

    from lakeops.config import LakeopsConfig

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Listing:
    tables: list[str]
    existing: set[str] | None
    """Tables the catalog lists; None when listing failed."""
    error: str | None = None


def list_tables(config: LakeopsConfig, catalog: Catalog, stored: set[str]) -> Listing:
    """Every maintained table (configured, discovered) with its existence; `stored`: tables with stored health,
    kept when the catalog cannot be listed."""
    from pyiceberg.exceptions import NoSuchNamespaceError

    from lakeops.tables.discovery import matches_any
    from lakeops.tables.identifier import TableId

    configured = {str(config.table_id(name)) for name in config.tables}
    namespaces = {config.table_id(name).dotted_namespace for name in config.tables}
    namespaces |= {ns for rule in config.discover for ns in rule.namespaces}
    existing: set[str] = set()
    try:
        for namespace in sorted(namespaces):
            try:
                listed = catalog.list_tables(namespace)
            except NoSuchNamespaceError:
                continue
            existing |= {str(TableId(tuple(identifier[:-1]), identifier[-1])) for identifier in listed}
    except Exception as e:  # noqa: BLE001 - the stored figures still make a page
        log.warning("table-health index: the catalog could not be listed: %s", e)
        return Listing(sorted(configured | stored), None, f"{type(e).__name__}: {e}")
    discovered = {t for t in existing if config.discover and matches_any(config.discover, TableId.parse(t))}
    return Listing(sorted(configured | discovered), existing)
