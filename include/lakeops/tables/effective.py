"""A table's effective settings at run time: its config (entry or discovery rule and defaults) with its own
Iceberg properties layered in, and the policy columns checked against its live schema."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lakeops.tables.live import resolve_columns

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table

    from lakeops.config import LakeopsConfig, TableConfig


def effective(spec: TableConfig, loaded: Table) -> TableConfig:
    """`spec` with `loaded`'s properties layered in (code default < config defaults < properties < entry)."""
    return spec.with_properties(loaded.properties)


def load_effective(config: LakeopsConfig, catalog: Catalog, name: str) -> tuple[TableConfig, Table]:
    """The table as the catalog has it now and its effective settings."""
    spec = config.table(name)
    loaded = catalog.load_table(spec.name)
    return effective(spec, loaded), loaded


def zonemap_field_ids(spec: TableConfig, loaded: Table) -> dict[str, int]:
    """The zonemap columns' field ids in the live schema; a column the table lacks fails with its actual columns."""
    return resolve_columns(loaded.schema(), spec.zonemap.columns, "zonemap.columns", spec.name)
