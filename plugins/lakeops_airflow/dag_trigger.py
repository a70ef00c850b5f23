"""Permissions and DAG-run triggers of the table page, through Airflow's own auth manager and REST API.

Buttons are shown only for DAGs the user may create runs of (the auth manager's `is_authorized_dag` for
POST on DAG runs, as Airflow's own trigger endpoint checks); the action endpoint checks the same and answers
403 otherwise. A permitted action is a POST to Airflow's public `/api/v2/dags/{dag_id}/dagRuns` carrying the
caller's own credentials (bearer token or session cookie), so the run is the user's, with Airflow's
validation of the params: in process through the api-server's own ASGI app when it is loaded here, else over
HTTP to `[api] base_url`.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

log = logging.getLogger(__name__)


def may(user: Any, dag_id: str, method: str = "POST") -> bool:
    """Whether `user` may create (POST) or read (GET) runs of `dag_id`."""
    from airflow.api_fastapi.app import get_auth_manager
    from airflow.api_fastapi.auth.managers.models.resource_details import DagAccessEntity, DagDetails

    try:
        return bool(get_auth_manager().is_authorized_dag(method=method, access_entity=DagAccessEntity.RUN,  # type: ignore[arg-type]
                                                         details=DagDetails(id=dag_id), user=user))
    except Exception:  # noqa: BLE001 - an auth manager that cannot answer grants nothing
        log.exception("permission on %s for %s could not be checked", dag_id, user)
        return False


def _root_app() -> Any | None:
    """The api-server's own application, when this process is the api-server."""
    main = sys.modules.get("airflow.api_fastapi.main")
    return getattr(main, "app", None)


async def trigger(request: Any, dag_id: str, conf: dict[str, Any], note: str) -> tuple[int, dict[str, Any]]:
    """POST a run of `dag_id` with `conf` to Airflow's REST API as the caller; (status, JSON answer)."""
    import httpx
    from airflow.api_fastapi.auth.managers.base_auth_manager import COOKIE_NAME_JWT_TOKEN
    from airflow.configuration import conf as airflow_conf

    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if request.headers.get("authorization"):
        headers["Authorization"] = request.headers["authorization"]
    cookies = {COOKIE_NAME_JWT_TOKEN: request.cookies[COOKIE_NAME_JWT_TOKEN]} if COOKIE_NAME_JWT_TOKEN in request.cookies else {}
    root = _root_app()
    transport = httpx.ASGITransport(app=root) if root is not None else None
    base = "http://api-server" if root is not None else airflow_conf.get("api", "base_url", fallback="http://127.0.0.1:8080")
    body = {"logical_date": None, "conf": conf, "note": note}
    async with httpx.AsyncClient(transport=transport, base_url=base.rstrip("/"), headers=headers, cookies=cookies,
                                 timeout=60) as client:
        response = await client.post(f"/api/v2/dags/{dag_id}/dagRuns", json=body)
    try:
        answer = response.json()
    except ValueError:
        answer = {"detail": response.text[:500]}
    return response.status_code, answer if isinstance(answer, dict) else {"detail": answer}
