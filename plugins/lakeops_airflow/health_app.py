"""The table-health pages: a FastAPI app the Airflow api-server mounts under /lakeops.

Every route requires an authenticated Airflow user (the UI's session cookie or a bearer token); unauthenticated
requests get 401. The index reads the stored health (lakeops.ui.table_page.build_index), a table's page
evaluates that table live and reads Airflow's records of its maintenance runs; the action endpoint starts a
maintenance DAG run through Airflow's REST API as the caller (lakeops_airflow.dag_trigger), 403 without the
permission to trigger that DAG.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlparse

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse

log = logging.getLogger(__name__)
URL_PREFIX = "/lakeops"
INDEX_HREF = f"{URL_PREFIX}/health/"
DEFAULT_HOURS = 168


def _ui_base() -> str:
    """The path Airflow's UI is served under ('' at the root), for links to DAG runs."""
    from airflow.configuration import conf

    return urlparse(conf.get("api", "base_url", fallback="") or "").path.rstrip("/")


def _config_catalog() -> tuple[Any, Any]:
    from lakeops.catalog import load_catalog
    from lakeops.config import load_config

    config = load_config()
    return config, load_catalog(config.catalog)


def _resolve(name: str) -> tuple[Any, Any, str]:
    from lakeops.exceptions import ConfigError

    config, catalog = _config_catalog()
    try:
        name = config.identifier(name)
    except ConfigError as e:
        raise HTTPException(status_code=400, detail=str(e)) from e
    return config, catalog, name


def _spec(config: Any, name: str) -> Any:
    from lakeops.exceptions import ConfigError

    try:
        return config.table(name)
    except ConfigError:
        return None


def _page(name: str, user: Any, hours: float) -> Any:
    from lakeops.ui.actions import MAINTENANCE_DAGS, available
    from lakeops.ui.health_view import ActionButton
    from lakeops.ui.runs import summarize
    from lakeops.ui.table_page import build_table_page
    from lakeops_airflow.airflow_records import maintenance_runs, missed_deadlines, paused
    from lakeops_airflow.dag_trigger import may

    config, catalog, name = _resolve(name)
    page = build_table_page(config, catalog, name, hours)
    spec = _spec(config, name)
    if not page.exists and spec is None:
        raise HTTPException(status_code=404, detail=f"table {name!r} is neither in the catalog nor in lakeops.yaml")
    try:
        readable = [d for d in MAINTENANCE_DAGS if may(user, d, "GET")]
        base = _ui_base()
        page.runs = [summarize(r, base) for r in maintenance_runs(name, readable)]
        page.missed_deadlines = missed_deadlines(name, config.identifier)
        actions = [a for a in available(spec) if may(user, a.dag_id)]
        states = paused(sorted({a.dag_id for a in actions}))
        page.actions = [ActionButton(a.name, a.label, a.dag_id, states.get(a.dag_id)) for a in actions]
    except Exception:  # noqa: BLE001 - the table's own figures still make a page
        log.exception("Airflow's records of table %s could not be read", name)
    return page


def create_app() -> FastAPI:
    from airflow.api_fastapi.core_api.security import get_user, requires_authenticated

    app = FastAPI(title="lakeops table health", dependencies=[Depends(requires_authenticated())])
    CALLER = Depends(get_user)  # the authenticated Airflow user, for permission checks

    @app.get("/health/", response_class=HTMLResponse)
    def index(sort: str = "score", desc: int = 0) -> str:
        from lakeops.ui.index_view import SORT_KEYS, sort_rows
        from lakeops.ui.render_index import render_index
        from lakeops.ui.table_page import build_index

        if sort not in SORT_KEYS:
            raise HTTPException(status_code=400, detail=f"sort: {sort!r} is not one of {', '.join(SORT_KEYS)}")
        started = time.perf_counter()
        config, catalog = _config_catalog()
        now_ms = int(time.time() * 1000)
        rows, listing = build_index(config, catalog, now_ms)
        rows = sort_rows(rows, sort, bool(desc))
        return render_index(rows, INDEX_HREF, INDEX_HREF, now_ms, sort, bool(desc), listing.error,
                            (time.perf_counter() - started) * 1000)

    @app.get("/health/{table}", response_class=HTMLResponse)
    def table_page(table: str, hours: int = DEFAULT_HOURS, user: Any = CALLER) -> str:
        from lakeops.ui.render_table import render_table_page

        page = _page(table, user, max(1, min(hours, 24 * 90)))
        return render_table_page(page, INDEX_HREF, f"{URL_PREFIX}/api/tables/{page.table}/actions/", hours)

    @app.get("/api/tables/{table}")
    def table_json(table: str, hours: int = DEFAULT_HOURS, user: Any = CALLER) -> dict[str, Any]:
        return _page(table, user, max(1, min(hours, 24 * 90))).to_json()

    @app.post("/api/tables/{table}/actions/{action_name}")
    async def start_action(table: str, action_name: str, request: Request, user: Any = CALLER) -> dict[str, Any]:
        from lakeops.exceptions import ConfigError
        from lakeops.ui.actions import action, available
        from lakeops.ui.runs import run_href
        from lakeops_airflow.airflow_records import paused
        from lakeops_airflow.dag_trigger import may, trigger

        config, _, name = _resolve(table)
        spec = _spec(config, name)
        try:
            chosen = action(action_name)
        except ConfigError as e:
            raise HTTPException(status_code=404, detail=str(e)) from e
        if chosen not in available(spec):
            raise HTTPException(status_code=404, detail=f"{chosen.label} does not apply to table {name}")
        if not may(user, chosen.dag_id):
            raise HTTPException(status_code=403, detail=f"you may not trigger runs of {chosen.dag_id}")
        conf = chosen.conf(name, datetime.now(UTC))
        status, answer = await trigger(request, chosen.dag_id, conf, f"{chosen.label} of {name}, from the table-health page")
        if status != 200:
            raise HTTPException(status_code=status, detail=answer.get("detail", answer))
        run_id = str(answer["dag_run_id"])
        log.info("table-health page: %s started %s %s with %s", user, chosen.dag_id, run_id, conf)
        return {"dag_id": chosen.dag_id, "run_id": run_id, "conf": conf, "state": answer.get("state"),
                "href": run_href(chosen.dag_id, run_id, _ui_base()), "paused": paused([chosen.dag_id]).get(chosen.dag_id)}

    return app
