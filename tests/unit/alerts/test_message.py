"""Alert texts name the table, DAG, run, deadline and how late; channel settings are read from
connection fields with clear errors."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from lakeops.alerts.channels import email_recipients, webhook_url
from lakeops.alerts.message import deadline_alert, format_duration, freshness_alert, lag_alert
from lakeops.exceptions import ConfigError

NOW = datetime(2026, 11, 21, 10, 17, 30, tzinfo=UTC)
CONTEXT = {
    "dag_run": {"dag_id": "ingest_events", "dag_run_id": "scheduled__2026-11-21T10:00:00+00:00",
                "state": "running", "conf": {}},
    "deadline": {"id": "0193", "deadline_time": "2026-11-21T10:15:00+00:00"},
}


def test_deadline_alert_names_table_dag_run_deadline_and_lateness():
    alert = deadline_alert(CONTEXT, table="events", deadline_minutes=15, now=NOW)
    assert (alert.table, alert.dag_id, alert.run_id) == ("events", "ingest_events", "scheduled__2026-11-21T10:00:00+00:00")
    assert alert.late_seconds == 150
    assert alert.subject == "[lakeops] deadline missed: table events, DAG ingest_events (2 min 30 s late)"
    assert "deadline: 2026-11-21 10:15:00 UTC" in alert.text
    assert "run: scheduled__2026-11-21T10:00:00+00:00" in alert.text
    assert "within 15 min of being queued; it is still running" in alert.text


def test_deadline_alert_takes_the_table_of_a_manual_run_and_a_datetime_deadline():
    context = {"dag_run": {**CONTEXT["dag_run"], "conf": {"table": "orders"}},
               "deadline": {"deadline_time": datetime(2026, 11, 21, 9, 0, tzinfo=UTC)}}
    alert = deadline_alert(context, table="events", deadline_minutes=60, now=NOW)
    assert alert.table == "orders" and alert.late_seconds == 4650
    assert format_duration(alert.late_seconds) == "1 h 17 min"


def test_deadline_alert_refuses_a_context_without_deadline_time():
    with pytest.raises(ConfigError, match="deadline.deadline_time"):
        deadline_alert({"dag_run": {}}, table="events", deadline_minutes=5, now=NOW)


def test_webhook_payload_is_slack_compatible_json():
    payload = deadline_alert(CONTEXT, table="events", deadline_minutes=15, now=NOW).webhook_payload()
    assert payload["text"].startswith("[lakeops] deadline missed: table events")
    assert payload["lakeops"] == {"kind": "deadline", "table": "events", "dag_id": "ingest_events",
                                  "run_id": "scheduled__2026-11-21T10:00:00+00:00",
                                  "deadline": "2026-11-21T10:15:00+00:00", "late_seconds": 150.0}


def test_freshness_alert_names_last_commit_sla_and_lateness():
    alert = freshness_alert(table="users", dag_id="table_freshness", run_id="r1",
                            last_commit=datetime(2026, 11, 21, 9, 40, tzinfo=UTC), sla_minutes=20, now=NOW)
    assert alert.deadline == datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
    assert alert.late_seconds == 1050
    assert "freshness SLA missed: table users, DAG table_freshness (17 min 30 s late)" in alert.subject
    assert "Last commit 2026-11-21 09:40:00 UTC, 37 min 30 s ago; freshness SLA 20 min." in alert.text
    never = freshness_alert(table="users", dag_id="d", run_id="r", last_commit=None, sla_minutes=20, now=NOW)
    assert "no commit at all" in never.text


def test_lag_alert_names_the_model_its_source_the_unread_commit_and_lateness():
    alert = lag_alert(model="daily", table="an.daily", source="web.clicks", oldest_unread=datetime(2026, 11, 21, 9, 50,
                      tzinfo=UTC), sla_minutes=15, dag_id="table_freshness", run_id="r1", now=NOW)
    assert (alert.kind, alert.deadline, alert.late_seconds) == ("lag", datetime(2026, 11, 21, 10, 5, tzinfo=UTC), 750)
    assert "ETL lag SLA missed: table an.daily, DAG table_freshness (12 min 30 s late)" in alert.subject
    assert ("ETL model daily has not read the commit of web.clicks from 2026-11-21 09:50:00 UTC, 27 min 30 s ago; its "
            "lag SLA is 15 min") in alert.text


def test_email_body_escapes_html():
    context = {**CONTEXT, "dag_run": {**CONTEXT["dag_run"], "dag_run_id": "<b>x</b>"}}
    html = deadline_alert(context, table="events", deadline_minutes=15, now=NOW).email_html()
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>" not in html


def test_webhook_url_from_connection_fields():
    assert webhook_url("c", "https://hooks.example.com/services/T/B/X", None, None, {}) == "https://hooks.example.com/services/T/B/X"
    assert webhook_url("c", "alerts.local", "http", 8080, {"path": "hook"}) == "http://alerts.local:8080/hook"
    with pytest.raises(ConfigError, match="'c': host is empty"):
        webhook_url("c", "", None, None, {})
    with pytest.raises(ConfigError, match="schema 'ftp'"):
        webhook_url("c", "h", "ftp", None, {})


def test_email_recipients_from_connection_extra():
    assert email_recipients("m", {"to": "a@x.io, b@x.io"}) == ["a@x.io", "b@x.io"]
    assert email_recipients("m", {"to": ["a@x.io"]}) == ["a@x.io"]
    with pytest.raises(ConfigError, match="extra 'to' is None"):
        email_recipients("m", {})
    with pytest.raises(ConfigError, match="not-an-address"):
        email_recipients("m", {"to": ["not-an-address"]})
