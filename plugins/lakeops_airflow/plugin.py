"""Registers lakeops with Airflow's plugin manager: the table-health page in the UI."""

from __future__ import annotations

from airflow.plugins_manager import AirflowPlugin

from lakeops_airflow.health_app import URL_PREFIX, create_app


class LakeopsPlugin(AirflowPlugin):
    name = "lakeops"
    fastapi_apps = [{"app": create_app(), "url_prefix": URL_PREFIX, "name": "lakeops table health"}]
    # A nav entry; url_route embeds the page in Airflow's UI (same origin, so the session cookie applies).
    external_views = [{"name": "Table health", "href": f"{URL_PREFIX}/health/", "destination": "nav",
                       "url_route": "lakeops-table-health", "category": "browse"}]
