"""The table_freshness DAG through dag.test() (lakeops.dag_runs, which runs DAGs that carry a
deadline alert): a fresh table passes, a table with no commit raises an alert that reaches a
webhook server on loopback naming the table, the DAG and the run."""

from __future__ import annotations

import json
import time
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


def test_a_model_whose_source_commit_waited_past_its_lag_sla_is_alerted(airflow_db, tmp_path, monkeypatch):
    """Two models over one source, each with a lag SLA of 1 min: `behind` has not read the source's last commit,
    `current` has (its watermark, committed by pyiceberg in the data's snapshot summary as lakeops' runs write it).
    The source's commit is left to wait past the SLA (real time: a snapshot's time is the committer's clock)."""
    from lakeops.watermark import watermark_key

    (tmp_path / "copy.sql").write_text("SELECT id FROM clicks\n")
    model = {"sql": "copy.sql", "key": ["id"], "partition_column": "id", "lag_sla_minutes": 1,
             "sources": {"clicks": {"kind": "append"}}}
    config_path = tmp_path / "lakeops.yaml"
    config_path.write_text(yaml.safe_dump({
        "catalog": {"name": "lag_test", "data_dir": str(tmp_path / "data")},
        "tables": {"clicks": {"freshness_sla_minutes": 600}},
        "models": {"behind": model, "current": model},
        "alerts": {"webhook_conn_id": "lakeops_lag_test_hook", "email_conn_id": "lakeops_lag_test_mail"},
    }))
    monkeypatch.setenv("LAKEOPS_CONFIG", str(config_path))
    config = load_config()
    catalog = load_catalog(config.catalog)
    catalog.create_namespace(config.catalog.namespace)
    rows = pa.table({"id": pa.array([1], pa.int64())})
    clicks = catalog.create_table(config.identifier("clicks"), schema=rows.schema)
    clicks.append(rows)
    read = clicks.current_snapshot().snapshot_id
    catalog.create_table(config.identifier("behind"), schema=rows.schema).append(
        rows, snapshot_properties={watermark_key("clicks"): str(read)})
    clicks.append(rows)
    unread = clicks.current_snapshot()
    catalog.create_table(config.identifier("current"), schema=rows.schema).append(
        rows, snapshot_properties={watermark_key("clicks"): str(unread.snapshot_id)})
    time.sleep(max(0.0, unread.timestamp_ms / 1000 + 62 - time.time()))

    with WebhookReceiver() as hook:
        monkeypatch.setenv("AIRFLOW_CONN_LAKEOPS_LAG_TEST_HOOK", json.dumps({"conn_type": "http", "host": hook.url}))
        run = run_dag_test(load_dag("table_freshness"), datetime.now(UTC))
    assert str(run.state) == "success"
    [alert] = hook.received
    assert (alert["lakeops"]["kind"], alert["lakeops"]["table"]) == ("lag", "lakeops.behind")
    assert "ETL model behind has not read the commit of lakeops.clicks from" in alert["text"]
    lags = {s["model"]: s for s in run.get_task_instance("check_freshness").xcom_pull(key="model_lags")}
    assert lags["behind"]["breached"] is True and lags["behind"]["oldest_unread_ms"] == unread.timestamp_ms
    assert lags["behind"]["lag_seconds"] >= 60
    assert lags["current"] == {"model": "current", "table": "lakeops.current", "lag_sla_minutes": 1, "source": None,
                               "oldest_unread_ms": None, "lag_seconds": None, "breached": False}
