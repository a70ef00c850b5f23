"""Registers lakeops with Airflow's plugin manager: the table-health page in the UI.

Airflow finds this class through the package's `airflow.plugins` entry point (pyproject.toml), so
an installed lakeops needs no plugins folder; pointing a plugins folder at this directory as well
would register it twice. The triggers and deadline callbacks need no registration: the triggerer
imports them by their path in the installed package (lakeops_airflow.triggers, .deadlines).
"""

from __future__ import annotations

from airflow.plugins_manager import AirflowPlugin

from lakeops_airflow.health_app import URL_PREFIX, create_app


class LakeopsPlugin(AirflowPlugin):
    name = "lakeops"
    fastapi_apps = [{"app": create_app(), "url_prefix": URL_PREFIX, "name": "lakeops table health"}]
    # A nav entry; url_route embeds the page in Airflow's UI (same origin, so the session cookie applies).
    external_views = [{"name": "Table health", "href": f"{URL_PREFIX}/health/", "destination": "nav",
                       "url_route": "lakeops-table-health", "category": "browse"}]
