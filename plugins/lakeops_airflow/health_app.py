"""The table-health page: a FastAPI app the Airflow api-server mounts under /lakeops.

Every route requires an authenticated Airflow user (the UI's session cookie or a bearer token);
unauthenticated requests get 401. Figures come from lakeops.ui.health_view (metadata only),
missed deadlines from Airflow's own deadline table.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from fastapi import Depends, FastAPI, HTTPException
from fastapi.responses import HTMLResponse

log = logging.getLogger(__name__)
URL_PREFIX = "/lakeops"
MISSED_DEADLINES_SHOWN = 10


def _missed_deadlines(table: str) -> list[dict[str, Any]]:
    """Missed DAG-run deadlines whose lakeops alert names this table, newest first."""
    from airflow.models import DagRun
    from airflow.models.deadline import Deadline
    from airflow.utils.session import create_session
    from sqlalchemy import select

    out = []
    with create_session() as session:
        rows = session.execute(
            select(Deadline, DagRun).join(DagRun, Deadline.dagrun_id == DagRun.id)
            .where(Deadline.missed).order_by(Deadline.deadline_time.desc()).limit(500))
        for deadline, run in rows:
            kwargs = ((deadline.callback.data or {}) if deadline.callback else {}).get("kwargs") or {}
            if kwargs.get("table") == table or (run.conf or {}).get("table") == table:
                out.append({"dag_id": run.dag_id, "run_id": run.run_id,
                            "deadline": deadline.deadline_time.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")})
            if len(out) >= MISSED_DEADLINES_SHOWN:
                break
    return out


def _view(name: str):
    from pyiceberg.exceptions import NoSuchTableError

    from lakeops.catalog import load_catalog
    from lakeops.config import load_config, validate_identifier
    from lakeops.exceptions import ConfigError
    from lakeops.ui.health_view import table_health_view

    try:
        validate_identifier(name, "table")
    except ConfigError as e:
        raise HTTPException(status_code=400, detail=str(e)) from e
    config = load_config()
    try:
        table = load_catalog(config.catalog).load_table(config.identifier(name))
    except NoSuchTableError:
        table = None
    if table is None and name not in config.tables:
        raise HTTPException(status_code=404, detail=f"table {name!r} is neither in the catalog nor in lakeops.yaml")
    sla = config.tables[name].freshness_sla_minutes if name in config.tables else None
    try:
        missed = _missed_deadlines(name)
    except Exception:  # the page still shows the table's figures if Airflow's DB cannot be read
        log.exception("missed deadlines of table %s could not be read", name)
        missed = []
    policy = config.tables[name].compaction if name in config.tables else None
    return table_health_view(table, name, sla, datetime.now(UTC), missed, policy)


def _table_names() -> list[str]:
    from lakeops.catalog import load_catalog
    from lakeops.config import load_config

    config = load_config()
    in_catalog = [ident[-1] for ident in load_catalog(config.catalog).list_tables(config.catalog.namespace)] \
        if config.catalog.namespace else []
    return sorted(set(config.tables) | set(in_catalog))


def create_app() -> FastAPI:
    from airflow.api_fastapi.core_api.security import requires_authenticated

    from lakeops.ui.render import render_index, render_table_page

    app = FastAPI(title="lakeops table health", dependencies=[Depends(requires_authenticated())])

    @app.get("/health/", response_class=HTMLResponse)
    def index() -> str:
        rows = []
        for name in _table_names():
            view = _view(name)
            rows.append({"table": name, "data_files": view.current.data_files if view.current else "-",
                         "delete_files": view.current.delete_files if view.current else "-",
                         "sla": view.sla.get("state", "")})
        return render_index(rows, f"{URL_PREFIX}/health/")

    @app.get("/health/{table}", response_class=HTMLResponse)
    def table_page(table: str) -> str:
        return render_table_page(_view(table), f"{URL_PREFIX}/health/")

    @app.get("/api/tables/{table}")
    def table_json(table: str) -> dict[str, Any]:
        return _view(table).to_json()

    return app
