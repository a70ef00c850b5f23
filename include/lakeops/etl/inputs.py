"""Plan one run of a model from the catalog's metadata (pyiceberg, no Spark): watermarks of the downstream
table, state of its sources, then the pure planner."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from lakeops.config import LakeopsConfig
from lakeops.etl.plan import EtlPlan, plan_etl
from lakeops.etl.state import source_state
from lakeops.watermark import current_watermarks

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table


def _table(catalog: Catalog, config: LakeopsConfig, name: str) -> Table | None:
    identifier = config.identifier(name)
    return catalog.load_table(identifier) if catalog.table_exists(identifier) else None


def plan_from_catalog(catalog: Catalog, config: LakeopsConfig, model_name: str, full: bool = False,
                      backfill_dates: tuple[date, ...] = ()) -> EtlPlan:
    model = config.model(model_name)
    downstream = _table(catalog, config, model.table_name)
    marks = current_watermarks(downstream) if downstream is not None and downstream.current_snapshot() else {}
    names = [model.source_table(alias) for alias in model.sources]
    states = {name: source_state(name, _table(catalog, config, name), marks.get(name)) for name in names}
    return plan_etl(model, marks, states, full=full, backfill_dates=backfill_dates)
