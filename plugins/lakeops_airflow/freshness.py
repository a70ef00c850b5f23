"""Freshness SLA check: one cheap metadata read per table, an alert for each table in breach."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC
from typing import Any

from airflow.sdk import BaseOperator


class TableFreshnessOperator(BaseOperator):
    """Checks every maintained table (or `tables`) against its freshness SLA, and every ETL model with a lag SLA
    against it, and alerts on a breach.

    The task succeeds when the alerts were delivered: a stale table is news for people, not a task
    failure to retry. It returns every table's status (XCom) for the table-health page."""

    template_fields: Sequence[str] = ("tables",)

    def __init__(self, *, tables: list[str] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tables = tables

    def execute(self, context: Any) -> list[dict[str, Any]]:
        from datetime import datetime

        from lakeops.alerts.freshness import check_freshness
        from lakeops.alerts.message import freshness_alert
        from lakeops.catalog import load_catalog
        from lakeops.config import load_config
        from lakeops_airflow.alerts import send_alert

        config = load_config()
        tables = [config.identifier(t) for t in self.tables] if self.tables else None
        now = datetime.now(UTC)
        catalog = load_catalog(config.catalog)
        statuses = check_freshness(catalog, config, now, tables)
        breached = [s for s in statuses if s.breached]
        self.log.info("freshness: %d table(s) checked, %d past their SLA", len(statuses), len(breached))
        run_id = str(context["run_id"])
        for status in breached:
            send_alert(freshness_alert(table=status.table, dag_id=self.dag_id, run_id=run_id,
                                       last_commit=status.last_commit, sla_minutes=status.sla_minutes, now=now),
                       config.alerts.webhook_conn_id, config.alerts.email_conn_id)
        self._check_model_lags(context, config, catalog, tables, now)
        return [{"table": s.table, "last_commit": s.last_commit.isoformat() if s.last_commit else None,
                 "age_seconds": s.age_seconds, "sla_minutes": s.sla_minutes, "breached": s.breached} for s in statuses]

    def _check_model_lags(self, context: Any, config: Any, catalog: Any, tables: list[str] | None, now: Any) -> None:
        """Alert for each ETL model whose oldest unread source commit waited past its lag SLA; every model's status is
        the XCom `model_lags`."""
        from datetime import datetime

        from lakeops.alerts.message import lag_alert
        from lakeops.alerts.model_lag import check_model_lags
        from lakeops_airflow.alerts import send_alert

        now_ms = int(now.timestamp() * 1000)
        lags = check_model_lags(catalog, config, now_ms, tables)
        self.log.info("ETL lag: %d model(s) checked, %d past their lag SLA", len(lags), sum(s.breached for s in lags))
        for status in lags:
            if status.breached and status.source and status.oldest_unread_ms is not None:
                send_alert(lag_alert(model=status.model, table=status.table, source=status.source,
                                     oldest_unread=datetime.fromtimestamp(status.oldest_unread_ms / 1000, UTC),
                                     sla_minutes=status.sla_minutes, dag_id=self.dag_id, run_id=str(context["run_id"]),
                                     now=now), config.alerts.webhook_conn_id, config.alerts.email_conn_id)
        context["ti"].xcom_push(key="model_lags", value=[s.as_dict(now_ms) for s in lags])
