"""The table_freshness DAG through dag.test() (lakeops.dag_runs, which runs DAGs that carry a
deadline alert): a fresh table passes, a table with no commit raises an alert that reaches a
webhook server on loopback naming the table, the DAG and the run."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pyarrow as pa
import pytest
import yaml

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.dag_runs import load_dag, run_dag_test
from tests.unit.alerts.servers import WebhookReceiver

pytestmark = [pytest.mark.airflow]


def test_freshness_dag_alerts_on_the_stale_table_only(airflow_db, tmp_path, monkeypatch):
    config_path = tmp_path / "lakeops.yaml"
    config_path.write_text(yaml.safe_dump({
        "catalog": {"name": "freshness_test", "data_dir": str(tmp_path / "data")},
        "tables": {"events": {"freshness_sla_minutes": 30},
                   "users": {"ingest": {"format": "cdc"}, "key": ["user_id"], "freshness_sla_minutes": 30}},
        "alerts": {"webhook_conn_id": "lakeops_freshness_test_hook", "email_conn_id": "lakeops_freshness_test_mail"},
    }))
    monkeypatch.setenv("LAKEOPS_CONFIG", str(config_path))
    config = load_config()
    catalog = load_catalog(config.catalog)
    catalog.create_namespace(config.catalog.namespace)
    catalog.create_table(config.identifier("events"), schema=pa.schema([("id", pa.int64())])).append(pa.table({"id": [1]}))

    dag = load_dag("table_freshness")
    assert dag.deadline, "the DAG file declares a deadline alert"
    with WebhookReceiver() as hook:
        monkeypatch.setenv("AIRFLOW_CONN_LAKEOPS_FRESHNESS_TEST_HOOK", json.dumps({"conn_type": "http", "host": hook.url}))
        run = run_dag_test(dag, datetime.now(UTC))
    assert str(run.state) == "success"
    assert dag.deadline, "run_dag_test gives the DAG its deadline back"
    [alert] = hook.received
    assert alert["lakeops"]["kind"] == "freshness"
    assert alert["lakeops"]["table"] == "lakeops.users" and alert["lakeops"]["dag_id"] == "table_freshness"
    assert alert["lakeops"]["run_id"] == run.run_id
    assert "no commit at all" in alert["text"]
    statuses = {s["table"]: s for s in run.get_task_instance("check_freshness").xcom_pull()}
    assert statuses["lakeops.events"]["breached"] is False and statuses["lakeops.users"]["breached"] is True
