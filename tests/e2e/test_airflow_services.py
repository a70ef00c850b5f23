"""The airflow_services fixture brings up a working deployment: every component healthy, the
project's DAGs parsed from the DAGs folder, REST API behind authentication, CLI against the same DB."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

pytestmark = [pytest.mark.airflow, pytest.mark.e2e]


def test_components_are_healthy_and_dags_are_parsed(airflow_services):
    assert set(airflow_services.health().values()) == {"healthy"}
    dag_ids = airflow_services.wait_for(
        lambda: {d["dag_id"] for d in airflow_services.api("GET", "/api/v2/dags")["dags"]} >= {"ingest.lakeops.events"}
        and {d["dag_id"] for d in airflow_services.api("GET", "/api/v2/dags")["dags"]},
        timeout=120, what="the dag-processor to parse dags/")
    assert "ingest.lakeops.events" in dag_ids
    listed = airflow_services.cli("dags", "list", "--output", "plain").stdout
    assert "ingest.lakeops.events" in listed


def test_rest_api_refuses_requests_without_a_token(airflow_services):
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{airflow_services.base_url}/api/v2/dags", timeout=10)
    assert refused.value.code == 401
