"""Plan one ETL run from the catalog's metadata (pyiceberg, no Spark): watermarks of the downstream
table, state of its sources, then the pure planner."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from lakeops.config import LakeopsConfig
from lakeops.etl.plan import EtlPlan, plan_etl, sources_of
from lakeops.etl.state import source_state
from lakeops.watermark import current_watermarks

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table


def _table(catalog: Catalog, config: LakeopsConfig, name: str) -> Table | None:
    identifier = config.identifier(name)
    return catalog.load_table(identifier) if catalog.table_exists(identifier) else None


def plan_from_catalog(catalog: Catalog, config: LakeopsConfig, table: str, full: bool = False,
                      backfill_dates: tuple[date, ...] = ()) -> EtlPlan:
    config.table(table)  # a downstream table must be configured (expiry reads its watermarks)
    downstream = _table(catalog, config, table)
    marks = current_watermarks(downstream) if downstream is not None and downstream.current_snapshot() else {}
    states = {name: source_state(name, _table(catalog, config, name), marks.get(name)) for name in sources_of(table)}
    return plan_etl(table, marks, states, full=full, backfill_dates=backfill_dates)
