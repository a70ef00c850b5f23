"""Cheap metadata-only checks of every maintained table in one task each: freshness against its SLA (alerts on
a breach) and health recorded in the history. Thousands of tables stay a few queries a run, and a table that
cannot be read is named at the end while the others are still checked."""

from __future__ import annotations

from typing import Any

from airflow.sdk import DAG, task
from airflow.timetables.interval import CronDataIntervalTimetable

from lakeops_airflow.dag_defaults import default_args
from lakeops_airflow.dags.common import START_DATE, tables_param
from lakeops_airflow.deadlines import dag_deadline
from lakeops_airflow.freshness import TableFreshnessOperator

FRESHNESS_DOC = """
### Table freshness SLAs

Every 5 minutes: for every maintained table, the age of its last commit that changed rows (compactions, expiry
and empty commits do not count) against its `freshness_sla_minutes` (config defaults, the table property
`lakeops.freshness-sla-minutes`, its entry). A table past its SLA gets an alert (log, webhook, e-mail) naming
the table, the run and how late; a table not created yet is in breach. Param `tables` narrows the check.
An ETL model with `lag_sla_minutes` gets an alert when the oldest source commit its watermarks have not read has
waited longer than that (a quiet source never breaches it); every such model's lag is the XCom `model_lags`.
"""

HEALTH_DOC = """
### Table health

Every 15 minutes: the health of every maintained table (data and delete files, read amplification, small files,
freshness) is evaluated from metadata, scored (0 to 100) and recorded in the health history the table-health page
reads, when the table committed since its last evaluation or that evaluation is a growth window old; every table's
gauges go out through Airflow's metrics (`lakeops.table_health.<gauge>.<table>`).
"""


def table_freshness_dag() -> DAG:
    with DAG(dag_id="table_freshness", doc_md=FRESHNESS_DOC,
             schedule=CronDataIntervalTimetable("*/5 * * * *", timezone="UTC"), start_date=START_DATE, catchup=False,
             max_active_runs=1, tags=["lakeops", "sla"], default_args=default_args(),
             params={"tables": tables_param("check")}, render_template_as_native_obj=True,
             deadline=dag_deadline("freshness")) as dag:
        # rendered as a native list (render_template_as_native_obj)
        TableFreshnessOperator(task_id="check_freshness", tables="{{ params.tables }}")  # type: ignore[arg-type]
    return dag


def table_health_dag() -> DAG:
    with DAG(dag_id="table_health", doc_md=HEALTH_DOC, schedule=CronDataIntervalTimetable("*/15 * * * *", timezone="UTC"),
             start_date=START_DATE, catchup=False, max_active_runs=1, tags=["lakeops", "health"],
             default_args=default_args(), params={"tables": tables_param("evaluate")},
             deadline=dag_deadline("health")) as dag:

        @task
        def evaluate(params: dict[str, Any] | None = None) -> dict[str, Any]:
            from lakeops.catalog import load_catalog
            from lakeops.config import load_config
            from lakeops.exceptions import MaintenanceError
            from lakeops.health.sweep import sweep

            config = load_config()
            result = sweep(config, load_catalog(config.catalog), (params or {}).get("tables") or None)
            if result.failed:
                raise MaintenanceError("health could not be evaluated for " +
                                       "; ".join(f"{t}: {e}" for t, e in result.failed.items()))
            return result.as_dict()

        evaluate()
    return dag
