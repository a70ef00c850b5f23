"""Airflow 3 deadline alerts for lakeops DAGs (`sla=` is gone in Airflow 3).

Every DAG file declares `deadline=dag_deadline("<kind>")`: a run must succeed within the
configured minutes (config `alerts.deadline_minutes.<kind>`, else `alerts.default_deadline_minutes`)
of being queued. Queued time, not the logical date, is the reference so a backfill of an old
date is not late on arrival. When a run misses it, the scheduler queues `deadline_missed` and the
triggerer runs it (this module is importable there: it lives in the plugins package).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

# airflow.sdk's __init__.pyi omits the deadline names its __init__.py exports (AsyncCallback, DeadlineAlert, DeadlineReference)
from airflow.sdk import AsyncCallback, DeadlineAlert, DeadlineReference  # type: ignore[attr-defined]

from lakeops.config import load_alerts_config


def dag_deadline(kind: str, table: str | None = None, interval: timedelta | None = None) -> DeadlineAlert:
    """The deadline alert of a DAG of this kind. Reads only the config's `alerts` section (one local
    file, cached), so it is cheap at parse time. `interval` overrides the configured minutes."""
    alerts = load_alerts_config()
    interval = interval or timedelta(minutes=alerts.deadline_for(kind))
    return DeadlineAlert(
        reference=DeadlineReference.DAGRUN_QUEUED_AT,
        interval=interval,
        callback=AsyncCallback(deadline_missed, kwargs={
            "kind": kind, "table": table, "deadline_minutes": round(interval.total_seconds() / 60, 2),
            "webhook_conn_id": alerts.webhook_conn_id, "email_conn_id": alerts.email_conn_id,
        }),
        name=f"lakeops {kind} deadline",
    )


async def deadline_missed(*, kind: str, table: str | None, deadline_minutes: float, webhook_conn_id: str,
                          email_conn_id: str, context: dict[str, Any] | None = None) -> str:
    """Runs in the triggerer when a run misses its deadline: builds the alert and sends it.

    Returns the delivery outcome as text: Airflow stores it in the callback's `output` column, a
    string column (a dict there crashes the component that saves it)."""
    from lakeops.alerts.message import deadline_alert
    from lakeops_airflow.alerts import asend_alert

    alert = deadline_alert(context or {}, table=table, deadline_minutes=deadline_minutes, now=datetime.now(UTC))
    results = await asend_alert(alert, webhook_conn_id, email_conn_id)
    return "; ".join(f"{channel}: {outcome}" for channel, outcome in results.items())
