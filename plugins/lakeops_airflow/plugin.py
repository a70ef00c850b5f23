"""Registers lakeops with Airflow's plugin manager."""

from __future__ import annotations

from airflow.plugins_manager import AirflowPlugin


class LakeopsPlugin(AirflowPlugin):
    name = "lakeops"
