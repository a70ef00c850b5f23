"""Alert routing through Airflow connections to real receivers on loopback: an HTTP webhook server
and an SMTP server (aiosmtpd). Connections come from AIRFLOW_CONN_* variables; a missing one turns
its channel off, a failing one fails the delivery after the other channels were tried."""

from __future__ import annotations

import asyncio
import json
import logging
from datetime import UTC, datetime

import pytest

from lakeops.alerts.message import deadline_alert
from lakeops.exceptions import AlertError
from lakeops_airflow.alerts import asend_alert, send_alert
from tests.unit.alerts.servers import SmtpReceiver, WebhookReceiver

WEBHOOK, EMAIL = "lakeops_test_webhook", "lakeops_test_email"
ALERT = deadline_alert(
    {"dag_run": {"dag_id": "ingest_events", "dag_run_id": "manual__1", "state": "running"},
     "deadline": {"deadline_time": "2026-11-21T10:15:00+00:00"}},
    table="events", deadline_minutes=15, now=datetime(2026, 11, 21, 10, 20, tzinfo=UTC))


@pytest.fixture()
def alert_log():
    """What lakeops_airflow.alerts logs, collected by a handler on its own logger."""
    records: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    logger = logging.getLogger("lakeops_airflow.alerts")
    handler, level = Collect(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield records
    logger.removeHandler(handler)
    logger.setLevel(level)


def _set_webhook(monkeypatch, url: str) -> None:
    monkeypatch.setenv(f"AIRFLOW_CONN_{WEBHOOK.upper()}", json.dumps({"conn_type": "http", "host": url}))


def _set_email(monkeypatch, port: int) -> None:
    monkeypatch.setenv(f"AIRFLOW_CONN_{EMAIL.upper()}", json.dumps({
        "conn_type": "smtp", "host": "127.0.0.1", "port": port, "extra": {
            "disable_ssl": True, "disable_tls": True, "from_email": "lakeops@example.com",
            "to": ["oncall@example.com", "data@example.com"]}}))


@pytest.mark.parametrize("mode", ["async", "sync"])
def test_alert_reaches_log_webhook_and_email(monkeypatch, alert_log, mode):
    with WebhookReceiver() as hook, SmtpReceiver() as smtp:
        _set_webhook(monkeypatch, f"{hook.url}/services/secret-token")
        _set_email(monkeypatch, smtp.port)
        if mode == "async":
            results = asyncio.run(asend_alert(ALERT, WEBHOOK, EMAIL))
        else:
            results = send_alert(ALERT, WEBHOOK, EMAIL)
    logged = "\n".join(alert_log)

    assert results == {"log": "sent", "webhook": "sent", "email": "sent to 2 recipient(s)"}
    assert hook.paths == ["/services/secret-token"]
    assert hook.received[0]["text"] == ALERT.text
    assert hook.received[0]["lakeops"]["dag_id"] == "ingest_events"
    [(recipients, message)] = smtp.messages
    assert recipients == ["oncall@example.com", "data@example.com"]
    assert message["Subject"] == ALERT.subject
    assert "table: events" in smtp.bodies()[0] and "run: manual__1" in smtp.bodies()[0]
    assert "table: events\nDAG: ingest_events\nrun: manual__1" in logged
    assert "secret-token" not in logged  # the webhook URL is a secret


def test_missing_connections_turn_channels_off(monkeypatch, alert_log):
    results = asyncio.run(asend_alert(ALERT, "lakeops_absent_webhook", "lakeops_absent_email"))
    assert results == {"log": "sent", "webhook": "off: no connection lakeops_absent_webhook",
                       "email": "off: no connection lakeops_absent_email"}
    assert "deadline missed: table events" in "\n".join(alert_log)


def test_a_failing_webhook_fails_delivery_after_email_was_sent(monkeypatch, alert_log):
    with WebhookReceiver(status=500) as hook, SmtpReceiver() as smtp:
        _set_webhook(monkeypatch, f"{hook.url}/services/secret-token")
        _set_email(monkeypatch, smtp.port)
        with pytest.raises(AlertError, match=r"could not be delivered to webhook: .*HTTP 500") as failed:
            asyncio.run(asend_alert(ALERT, WEBHOOK, EMAIL))
    assert len(smtp.messages) == 1 and len(hook.received) == 1
    assert "secret-token" not in str(failed.value) and "secret-token" not in "\n".join(alert_log)
