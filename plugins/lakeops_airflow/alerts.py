"""Deliver lakeops alerts to the task log, a webhook and email; each channel but the log is on when
its Airflow connection exists (ids from the config's `alerts` section). Secrets stay in the
connections: URLs, passwords and addresses are never logged.

`asend_alert` runs in the triggerer (deadline callbacks), `send_alert` in a worker task.
"""

from __future__ import annotations

import logging
from typing import Any

from lakeops.alerts.channels import delivery_failed, email_recipients, webhook_url
from lakeops.alerts.message import Alert
from lakeops.exceptions import AlertError

log = logging.getLogger(__name__)
WEBHOOK_TIMEOUT_S = 10.0


def _is_missing(error: Exception) -> bool:
    from airflow.exceptions import AirflowNotFoundException

    return isinstance(error, AirflowNotFoundException)


def _failure(error: Exception) -> str:
    import httpx

    if isinstance(error, httpx.HTTPStatusError):  # its text holds the URL
        return f"failed: HTTP {error.response.status_code}"
    if isinstance(error, httpx.HTTPError):
        return f"failed: {type(error).__name__}"
    return f"failed: {type(error).__name__}: {error}"


def _finish(alert: Alert, results: dict[str, str]) -> dict[str, str]:
    log.info("lakeops alert for table %s, DAG %s, run %s delivered: %s", alert.table, alert.dag_id, alert.run_id, results)
    failed = delivery_failed(results)
    if failed:
        raise AlertError(f"alert for table {alert.table}, DAG {alert.dag_id}, run {alert.run_id} could not be delivered "
                         f"to {', '.join(failed)}: {results}; check those Airflow connections")
    return results


def _log(alert: Alert) -> str:
    log.warning("%s", alert.text)
    return "sent"


async def asend_alert(alert: Alert, webhook_conn_id: str, email_conn_id: str) -> dict[str, str]:
    import httpx
    from airflow.providers.smtp.hooks.smtp import SmtpHook
    from airflow.sdk import BaseHook

    results = {"log": _log(alert)}
    try:
        conn = await BaseHook.aget_connection(webhook_conn_id)
        url = webhook_url(webhook_conn_id, conn.host, conn.schema, conn.port, conn.extra_dejson)
        async with httpx.AsyncClient(timeout=WEBHOOK_TIMEOUT_S) as client:
            (await client.post(url, json=alert.webhook_payload())).raise_for_status()
        results["webhook"] = "sent"
    except Exception as e:
        results["webhook"] = f"off: no connection {webhook_conn_id}" if _is_missing(e) else _failure(e)
    try:
        conn = await BaseHook.aget_connection(email_conn_id)
        to = email_recipients(email_conn_id, conn.extra_dejson)
        async with SmtpHook(smtp_conn_id=email_conn_id) as hook:
            await hook.asend_email_smtp(to=to, subject=alert.subject, html_content=alert.email_html())
        results["email"] = f"sent to {len(to)} recipient(s)"
    except Exception as e:
        results["email"] = f"off: no connection {email_conn_id}" if _is_missing(e) else _failure(e)
    return _finish(alert, results)


def send_alert(alert: Alert, webhook_conn_id: str, email_conn_id: str) -> dict[str, str]:
    import httpx
    from airflow.providers.smtp.hooks.smtp import SmtpHook
    from airflow.sdk import BaseHook

    results = {"log": _log(alert)}
    try:
        conn: Any = BaseHook.get_connection(webhook_conn_id)
        url = webhook_url(webhook_conn_id, conn.host, conn.schema, conn.port, conn.extra_dejson)
        httpx.post(url, json=alert.webhook_payload(), timeout=WEBHOOK_TIMEOUT_S).raise_for_status()
        results["webhook"] = "sent"
    except Exception as e:
        results["webhook"] = f"off: no connection {webhook_conn_id}" if _is_missing(e) else _failure(e)
    try:
        conn = BaseHook.get_connection(email_conn_id)
        to = email_recipients(email_conn_id, conn.extra_dejson)
        with SmtpHook(smtp_conn_id=email_conn_id) as hook:
            hook.send_email_smtp(to=to, subject=alert.subject, html_content=alert.email_html())
        results["email"] = f"sent to {len(to)} recipient(s)"
    except Exception as e:
        results["email"] = f"off: no connection {email_conn_id}" if _is_missing(e) else _failure(e)
    return _finish(alert, results)
