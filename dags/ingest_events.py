"""
### Ingest events

Every 5 minutes, a Spark job reads the behavioral events that landed during the run's
data interval (`landing/events/YYYY/MM/DD/HH/mm/`) and appends them to the Iceberg table
`events`, partitioned by event day and sorted by event time.

* **Exactly once**: the batch id is derived from the data interval, so a retry, a manual
  re-run or a backfill of the same interval publishes nothing twice.
* **Bad input** (malformed JSON, wrong types, missing fields) goes to `events_quarantine`
  with the raw line and the reason; the good rows still commit.
* An interval with no landed files succeeds as a no-op.

Manual runs without a data interval: set the params `start` and `end` (ISO-8601).
"""

from __future__ import annotations

import pendulum
from airflow.sdk import DAG, Param
from airflow.timetables.interval import CronDataIntervalTimetable

from lakeops_airflow.dag_defaults import default_args
from lakeops_airflow.deadlines import dag_deadline
from lakeops_airflow.operators import LakeopsSparkSubmitOperator

with DAG(
    dag_id="ingest_events",
    doc_md=__doc__,
    # A real data interval: [previous tick, this tick). A bare cron string would give start == end.
    schedule=CronDataIntervalTimetable("*/5 * * * *", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    tags=["lakeops", "ingest"],
    default_args=default_args(),
    params={
        "table": Param("events", type="string", pattern=r"^[a-z_][a-z0-9_]{0,62}$", description="table in lakeops.yaml"),
        "start": Param(None, type=["null", "string"], format="date-time", description="override the interval start"),
        "end": Param(None, type=["null", "string"], format="date-time", description="override the interval end"),
    },
    deadline=dag_deadline("ingest", table="events"),
) as dag:
    LakeopsSparkSubmitOperator(
        task_id="ingest",
        job="ingest_events",
        job_args=[
            "--table", "{{ params.table }}",
            # A run with no data interval renders "" here; the job then names the params to set.
            "--start", "{{ params.start or (data_interval_start.isoformat() if data_interval_start else '') }}",
            "--end", "{{ params.end or (data_interval_end.isoformat() if data_interval_end else '') }}",
        ],
    )
