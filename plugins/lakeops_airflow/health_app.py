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
    from lakeops.config import load_config
    from lakeops.exceptions import ConfigError
    from lakeops.tables.effective import effective
    from lakeops.ui.health_view import table_health_view

    config = load_config()
    try:
        name = config.identifier(name)
    except ConfigError as e:
        raise HTTPException(status_code=400, detail=str(e)) from e
    try:
        spec = config.table(name)
    except ConfigError:
        spec = None
    try:
        table = load_catalog(config.catalog).load_table(name)
    except NoSuchTableError:
        table = None
    if table is None and spec is None:
        raise HTTPException(status_code=404, detail=f"table {name!r} is neither in the catalog nor in lakeops.yaml")
    if spec is not None and table is not None:
        spec = effective(spec, table)
    try:
        missed = _missed_deadlines(name)
    except Exception:  # the page still shows the table's figures if Airflow's DB cannot be read
        log.exception("missed deadlines of table %s could not be read", name)
        missed = []
    return table_health_view(table, name, spec.freshness_sla_minutes if spec else None, datetime.now(UTC), missed,
                             spec.compaction if spec else None)


def _table_names() -> list[str]:
    """Every maintained table: the configured ones (created or not) and those the discovery rules find."""
    from lakeops.catalog import load_catalog
    from lakeops.config import load_config

    config = load_config()
    return [str(t) for t in config.maintained(load_catalog(config.catalog))]


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
