"""An ETL model's status from the catalog's metadata alone (no Spark): its table's last commit, each source's commits
the watermarks have not read yet (lakeops.etl.lag) and what the next incremental run would do. `lakeops etl status`
prints it; the health page of a model's table shows it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from lakeops.etl.inputs import plan_from_catalog
from lakeops.etl.lag import SourceLag, lag_breached, snapshot_facts, source_lag
from lakeops.watermark import current_watermarks

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table

    from lakeops.config import LakeopsConfig


def models_writing(config: LakeopsConfig, identifier: str) -> list[str]:
    """The models whose table is `identifier` (one at most: the config refuses two)."""
    return [m.name for m in config.models.values() if config.identifier(m.table_name) == identifier]


def model_lags(catalog: Catalog, config: LakeopsConfig, name: str, table: Table | None) -> dict[str, SourceLag]:
    """Source name (as the model reads it) -> its lag behind that source; `table` is the model's table, if it exists."""
    model = config.model(name)
    head = table.current_snapshot() if table is not None else None
    marks = current_watermarks(table) if table is not None and head is not None else {}
    lags = {}
    for alias in model.sources:
        source = config.identifier(model.source_table(alias))
        loaded = catalog.load_table(source) if catalog.table_exists(source) else None
        current = loaded.current_snapshot() if loaded is not None else None
        # The watermarks are named by the source table as the model names it (lakeops.etl.inputs.plan_from_catalog).
        lags[alias] = source_lag(source, snapshot_facts(loaded) if loaded is not None else [],
                                 current.snapshot_id if current else None, marks.get(model.source_table(alias)))
    return lags


def model_table(catalog: Catalog, config: LakeopsConfig, name: str) -> Table | None:
    identifier = config.identifier(config.model(name).table_name)
    return catalog.load_table(identifier) if catalog.table_exists(identifier) else None


def model_status(catalog: Catalog, config: LakeopsConfig, name: str) -> dict[str, Any]:
    """The model's table (whether it exists, its current snapshot and when it landed), per source its lag behind the
    source (SourceLag.as_dict), and the next incremental run's mode and reason."""
    model = config.model(name)
    identifier = config.identifier(model.table_name)
    table = model_table(catalog, config, name)
    head = table.current_snapshot() if table is not None else None
    sources = [{"name": alias, "kind": model.source(alias).kind, **lag.as_dict()}
               for alias, lag in model_lags(catalog, config, name, table).items()]
    plan = plan_from_catalog(catalog, config, name)
    return {"model": name, "table": identifier, "exists": table is not None,
            "snapshot_id": head.snapshot_id if head else None, "committed_ms": head.timestamp_ms if head else None,
            "sources": sources, "lag_sla_minutes": model.lag_sla_minutes,
            "next_run": {"mode": plan.mode, "reason": plan.reason}}


def when_text(ms: int, now_ms: int) -> str:
    moment = datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"{moment}, {max(0, now_ms - ms) // 60_000} min ago"


def status_lines(status: dict[str, Any], now_ms: int) -> list[str]:
    """One line per source (what its watermark has not read yet), then the next run's."""
    lines = []
    for s in status["sources"]:
        if s["unread_commits"] is None:
            state = ("no watermark yet" if s["watermark_snapshot_id"] is None else
                     f"watermark snapshot {s['watermark_snapshot_id']} is no longer in its history")
        elif s["unread_commits"] == 0:
            state = "up to date"
        else:
            state = f"{s['unread_commits']} commit(s) unread, the oldest from {when_text(s['oldest_unread_ms'], now_ms)}"
        lines.append(f"{s['name']} ({s['source']}, {s['kind']}): {state}")
    sla = status.get("lag_sla_minutes")
    if sla:
        oldest = min((s["oldest_unread_ms"] for s in status["sources"] if s["oldest_unread_ms"] is not None), default=None)
        waited = None if oldest is None else (now_ms - oldest) // 60_000
        state = "missed" if lag_breached(oldest, sla, now_ms) else "met"
        lines.append(f"lag SLA {sla} min: {state}" + ("" if waited is None else f" (the oldest unread commit: {waited} min)"))
    lines.append(f"next run: {status['next_run']['mode']} ({status['next_run']['reason']})")
    return lines
