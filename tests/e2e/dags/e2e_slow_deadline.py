"""
### e2e: a slow run with a short deadline

Test-only DAG (tests/e2e): one task sleeps past the run's deadline (a run that ends after it has
missed it, whenever the scheduler looks), so the scheduler marks the deadline missed and the
triggerer runs lakeops' deadline callback.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.providers.standard.operators.bash import BashOperator
from airflow.sdk import DAG

from lakeops_airflow.dag_defaults import default_args
from lakeops_airflow.deadlines import dag_deadline

with DAG(
    dag_id="e2e_slow_deadline",
    doc_md=__doc__,
    schedule=None,
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    tags=["lakeops", "e2e"],
    default_args=default_args(retries=1),
    deadline=dag_deadline("e2e", table="events", interval=timedelta(seconds=5)),
) as dag:
    BashOperator(task_id="slow", bash_command="sleep 15")
