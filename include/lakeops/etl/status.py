"""An ETL model's status from the catalog's metadata alone (no Spark): its table's last commit, each source's commits
the watermarks have not read yet (lakeops.etl.lag) and what the next incremental run would do. `lakeops etl status`
prints it; the health page of a model's table shows it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from lakeops.etl.inputs import ModelTables, load_model_tables, plan_from_tables
from lakeops.etl.lag import SourceLag, lag_breached, snapshot_facts, source_lag
from lakeops.watermark import current_watermarks

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog

    from lakeops.config import LakeopsConfig


def model_lags(config: LakeopsConfig, name: str, loaded: ModelTables) -> dict[str, SourceLag]:
    """Source name (as the model reads it) -> its lag behind that source, from the model's tables as loaded."""
    model = config.model(name)
    table = loaded.downstream
    marks = current_watermarks(table) if table is not None and table.current_snapshot() is not None else {}
    lags = {}
    for alias in model.sources:
        named = model.source_table(alias)  # what the watermarks are named by
        source = loaded.sources[named]
        current = source.current_snapshot() if source is not None else None
        lags[alias] = source_lag(config.identifier(named), snapshot_facts(source) if source is not None else [],
                                 current.snapshot_id if current else None, marks.get(named))
    return lags


def model_status(catalog: Catalog, config: LakeopsConfig, name: str) -> dict[str, Any]:
    """The model's table (whether it exists, its current snapshot and when it landed), per source its lag behind the
    source (SourceLag.as_dict), and the next incremental run's mode and reason; each table loaded once."""
    model = config.model(name)
    loaded = load_model_tables(catalog, config, name)
    head = loaded.downstream.current_snapshot() if loaded.downstream is not None else None
    sources = [{"name": alias, "kind": model.source(alias).kind, **lag.as_dict()}
               for alias, lag in model_lags(config, name, loaded).items()]
    plan = plan_from_tables(config, name, loaded)
    return {"model": name, "table": config.identifier(model.table_name), "exists": loaded.downstream is not None,
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
