"""A real missed deadline: the scheduler of a running Airflow sees a run of e2e_slow_deadline pass
its 5-second deadline, the triggerer runs lakeops' deadline callback, and the alert reaches a
webhook server in this test (connection created in the metadata DB, as an operator would)."""

from __future__ import annotations

import json
import time
from datetime import datetime

import pytest

from tests.unit.alerts.servers import WebhookReceiver

pytestmark = [pytest.mark.airflow, pytest.mark.e2e]
DAG_ID = "e2e_slow_deadline"


def test_missed_deadline_fires_the_alert_webhook(airflow_services):
    services = airflow_services
    with WebhookReceiver() as hook:
        services.cli("connections", "add", "lakeops_alerts_webhook", "--conn-json",
                     json.dumps({"conn_type": "http", "host": f"{hook.url}/hooks/e2e-secret"}))
        services.wait_for(lambda: any(d["dag_id"] == DAG_ID for d in services.api("GET", "/api/v2/dags")["dags"]),
                          timeout=120, what=f"the dag-processor to parse {DAG_ID}")
        services.api("PATCH", f"/api/v2/dags/{DAG_ID}", {"is_paused": False})
        started = time.monotonic()
        run = services.api("POST", f"/api/v2/dags/{DAG_ID}/dagRuns", {"logical_date": None})
        run_id = run["dag_run_id"]

        services.wait_for(lambda: hook.received, timeout=150, what="the deadline alert at the webhook")
        fired_after = time.monotonic() - started
        payload = hook.received[0]
        assert hook.paths == ["/hooks/e2e-secret"]
        assert payload["lakeops"]["kind"] == "deadline"
        assert payload["lakeops"]["table"] == "events"
        assert payload["lakeops"]["dag_id"] == DAG_ID
        assert payload["lakeops"]["run_id"] == run_id
        assert payload["lakeops"]["late_seconds"] >= 0
        queued = datetime.fromisoformat(run["queued_at"].replace("Z", "+00:00"))
        deadline = datetime.fromisoformat(payload["lakeops"]["deadline"])
        assert abs((deadline - queued).total_seconds() - 5) < 1  # queued_at + the 5 s interval
        assert f"run: {run_id}" in payload["text"] and "DAG: e2e_slow_deadline" in payload["text"]
        # the slow run itself still finishes: the alert tells, it does not stop the run
        services.wait_for(lambda: services.dag_run_state(DAG_ID, run_id) in ("success", "failed"),
                          timeout=120, what="the slow run to finish")
        assert services.dag_run_state(DAG_ID, run_id) == "success"
        assert set(services.health().values()) == {"healthy"}  # the callback's outcome was stored cleanly
        # the table-health page lists the miss under the table the alert names
        missed = services.api("GET", "/lakeops/api/tables/events")["missed_deadlines"]
        assert [m["run_id"] for m in missed if m["dag_id"] == DAG_ID] == [run_id]
        print(f"\ndeadline alert reached the webhook {fired_after:.1f} s after the run was triggered")
