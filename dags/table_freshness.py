"""
### Table freshness

Every 5 minutes, checks each configured table's freshness SLA: the age of its last commit (the
current Iceberg snapshot's timestamp, read from metadata only) against the table's
`freshness_sla_minutes` in lakeops.yaml. Each table past its SLA raises an alert naming the
table, this DAG, the run, the deadline and how late, sent to the task log, the webhook and email
connections of the config's `alerts` section.

Manual runs: the param `tables` limits the check to some tables (empty: all).
"""

from __future__ import annotations

import pendulum
from airflow.sdk import DAG, Param
from airflow.timetables.interval import CronDataIntervalTimetable

from lakeops_airflow.dag_defaults import default_args
from lakeops_airflow.deadlines import dag_deadline
from lakeops_airflow.freshness import TableFreshnessOperator

with DAG(
    dag_id="table_freshness",
    doc_md=__doc__,
    schedule=CronDataIntervalTimetable("*/5 * * * *", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    tags=["lakeops", "sla"],
    default_args=default_args(),
    params={
        "tables": Param([], type="array", items={"type": "string", "pattern": r"^[a-z_][a-z0-9_]{0,62}$"},
                        description="tables to check (empty: every table in lakeops.yaml)"),
    },
    render_template_as_native_obj=True,  # params.tables reaches the operator as a list
    deadline=dag_deadline("freshness"),
) as dag:
    TableFreshnessOperator(task_id="check_freshness", tables="{{ params.tables }}")
