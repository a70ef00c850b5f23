"""Lag SLA per ETL model (models.<name>.lag_sla_minutes): how long the oldest source commit its watermarks have not
read has waited, against the SLA. Metadata only (the sources' snapshot logs, the model's watermarks)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakeops.etl.inputs import load_model_tables
from lakeops.etl.lag import lag_breached, most_behind
from lakeops.etl.status import model_lags

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog

    from lakeops.config import LakeopsConfig


@dataclass(frozen=True)
class ModelLagStatus:
    model: str
    table: str
    sla_minutes: int
    source: str | None
    """The source whose oldest unread commit is the oldest; None when nothing is unread (or it cannot be told)."""
    oldest_unread_ms: int | None
    breached: bool

    def as_dict(self, now_ms: int) -> dict:
        lag = None if self.oldest_unread_ms is None else round((now_ms - self.oldest_unread_ms) / 1000, 1)
        return {"model": self.model, "table": self.table, "lag_sla_minutes": self.sla_minutes, "source": self.source,
                "oldest_unread_ms": self.oldest_unread_ms, "lag_seconds": lag, "breached": self.breached}


def check_model_lags(catalog: Catalog, config: LakeopsConfig, now_ms: int,
                     tables: list[str] | None = None) -> list[ModelLagStatus]:
    """Every model with a lag SLA (or those whose table is among `tables`), against it."""
    statuses = []
    for model in config.models.values():
        table = config.identifier(model.table_name)
        if model.lag_sla_minutes is None or (tables is not None and table not in tables):
            continue
        behind = most_behind(list(model_lags(config, model.name, load_model_tables(catalog, config, model.name)).values()))
        statuses.append(ModelLagStatus(model.name, table, model.lag_sla_minutes, behind.source if behind else None,
                                       behind.oldest_unread_ms if behind else None,
                                       lag_breached(behind.oldest_unread_ms if behind else None, model.lag_sla_minutes,
                                                    now_ms)))
    return statuses
