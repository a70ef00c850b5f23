"""Plan one run of a model from the catalog's metadata (pyiceberg, no Spark): watermarks of the downstream
table, state of its sources, then the pure planner."""

from __future__ import annotations

import dataclasses
from datetime import date
from typing import TYPE_CHECKING

from lakeops.config import LakeopsConfig
from lakeops.etl.changed_dates import WatermarkFacts
from lakeops.etl.plan import EtlPlan, plan_etl
from lakeops.etl.state import source_changed_dates, source_state
from lakeops.watermark import current_watermark_facts, current_watermarks

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table


@dataclasses.dataclass(frozen=True)
class ModelTables:
    """A model's tables as the catalog has them now (None: not created yet): its own, and its sources by the name the
    model gives them (model.source_table), which is what the watermarks are named by."""

    downstream: Table | None
    sources: dict[str, Table | None]


def load_model_tables(catalog: Catalog, config: LakeopsConfig, model_name: str) -> ModelTables:
    model = config.model(model_name)

    def load(name: str) -> Table | None:
        identifier = config.identifier(name)
        return catalog.load_table(identifier) if catalog.table_exists(identifier) else None

    return ModelTables(load(model.table_name), {model.source_table(alias): load(model.source_table(alias))
                                                for alias in model.sources})


def plan_from_catalog(catalog: Catalog, config: LakeopsConfig, model_name: str, full: bool = False,
                      backfill_dates: tuple[date, ...] = ()) -> EtlPlan:
    return plan_from_tables(config, model_name, load_model_tables(catalog, config, model_name), full, backfill_dates)


def plan_from_tables(config: LakeopsConfig, model_name: str, loaded: ModelTables, full: bool = False,
                     backfill_dates: tuple[date, ...] = ()) -> EtlPlan:
    model = config.model(model_name)
    downstream, tables = loaded.downstream, loaded.sources
    marks = current_watermarks(downstream) if downstream is not None and downstream.current_snapshot() else {}
    states = {name: source_state(name, table, marks.get(name)) for name, table in tables.items()}
    expired = any(name in marks and marks[name] not in state.live_snapshot_ids for name, state in states.items())
    if expired and not full and not backfill_dates:
        # Only then are the sources' manifests read: the dates their rows changed on since the watermarks.
        assert downstream is not None
        facts = current_watermark_facts(downstream)
        for alias in model.sources:
            name = model.source_table(alias)
            mark = WatermarkFacts(*facts[name]) if name in facts else None
            dates = source_changed_dates(states[name], tables[name], model.source(alias).time_column, mark, marks.get(name))
            states[name] = dataclasses.replace(states[name], changed_dates=dates)
    return plan_etl(model, marks, states, full=full, backfill_dates=backfill_dates)
