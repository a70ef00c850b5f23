"""
### Ingest CDC changes (users, orders)

Every 5 minutes, a Spark job per table reads the Debezium change files that landed during the
run's data interval (`landing/cdc/<table>/YYYY/MM/DD/HH/mm/`) and applies them to the Iceberg
table with `MERGE INTO` in **merge-on-read** mode: updates and deletes write small position
delete files (format v2) instead of rewriting data files; the compaction DAG folds them back.

* **Source order**: the changes of one key inside a batch are reduced to the last one by
  `source.lsn` (then `ts_ms`): the last update wins, a final delete deletes.
* **Exactly once**: the batch id is derived from the table and the data interval; the MERGE is
  staged under it and published once (write-audit-publish). A retry or re-run merges nothing twice.
* **Bad envelopes** (not JSON, unknown op, no lsn, missing image or key, wrong types) go to
  `<table>_quarantine` with the raw line and the reason; the good changes still merge.

One task per table (they run side by side and fail or retry independently; clear one task to
re-run one table). Params `start`/`end` (ISO-8601) for a manual run without a data interval.
"""

from __future__ import annotations

import pendulum
from airflow.sdk import DAG, Param
from airflow.timetables.interval import CronDataIntervalTimetable

from lakeops_airflow.dag_defaults import default_args
from lakeops_airflow.deadlines import dag_deadline
from lakeops_airflow.operators import LakeopsSparkSubmitOperator

CDC_TABLES = ["users", "orders"]

with DAG(
    dag_id="ingest_cdc",
    doc_md=__doc__,
    schedule=CronDataIntervalTimetable("*/5 * * * *", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    # Intervals apply in order: a later interval's changes never merge before an earlier one's.
    max_active_runs=1,
    tags=["lakeops", "ingest", "cdc"],
    default_args=default_args(),
    deadline=dag_deadline("ingest"),
    params={
        "start": Param(None, type=["null", "string"], format="date-time", description="override the interval start"),
        "end": Param(None, type=["null", "string"], format="date-time", description="override the interval end"),
    },
) as dag:
    for table in CDC_TABLES:
        LakeopsSparkSubmitOperator(
            task_id=f"ingest_{table}",
            job="ingest_cdc",
            job_args=[
                "--table", table,
                "--start", "{{ params.start or (data_interval_start.isoformat() if data_interval_start else '') }}",
                "--end", "{{ params.end or (data_interval_end.isoformat() if data_interval_end else '') }}",
            ],
        )
