"""Each table's current metadata file, read as cheaply as the catalog allows, so a poll over many tables
loads only those that committed since the last poll. A SQL catalog (the embedded one, JDBC on PostgreSQL)
answers for every table in one query; other catalogs are asked table by table (a REST loadTable each)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog

log = logging.getLogger(__name__)


def metadata_locations(catalog: Catalog, tables: list[str]) -> dict[str, str | None]:
    """table identifier -> its current metadata location (None: the table does not exist)."""
    from pyiceberg.catalog.sql import IcebergTables, SqlCatalog

    if isinstance(catalog, SqlCatalog):
        import sqlalchemy as sa

        query = sa.select(IcebergTables.table_namespace, IcebergTables.table_name, IcebergTables.metadata_location).where(
            IcebergTables.catalog_name == catalog.name)
        with catalog.engine.connect() as conn:
            found = {f"{ns}.{name}": location for ns, name, location in conn.execute(query)}
        return {table: found.get(table) for table in tables}
    return {table: _loaded_location(catalog, table) for table in tables}


def _loaded_location(catalog: Catalog, table: str) -> str | None:
    from pyiceberg.exceptions import NoSuchTableError

    try:
        return catalog.load_table(table).metadata_location
    except NoSuchTableError:
        return None
