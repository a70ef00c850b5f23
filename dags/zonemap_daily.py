"""
### Zonemap: daily master

Every day, a Spark job rolls the previous master, the hourly zonemaps and any micro zonemaps of
everything committed through the end of the run's day into a new daily master, reconciled with the
live files of the current snapshot (dropped files' entries go, files without an entry get one from
Iceberg's manifest metrics; the drift is logged). The master is published atomically and recorded
in the snapshot map (`_zonemaps/map/daily.json`); the micro zonemaps it covers are then removed.

A backfill of an older day never shrinks the master: it covers at least what the previous one did.

* Backfill by date: `airflow backfill create --dag-id zonemap_daily --from-date 2026-11-20 --to-date 2026-11-22`
* Manual run: params `table` and `day` (YYYY-MM-DD).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG, Param
from airflow.timetables.interval import CronDataIntervalTimetable

from lakeops_airflow.operators import LakeopsSparkSubmitOperator

with DAG(
    dag_id="zonemap_daily",
    doc_md=__doc__,
    # The data interval is the day consolidated; the tick waits 30 minutes for the last hourly run.
    schedule=CronDataIntervalTimetable("30 0 * * *", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,  # each run rewrites the level's snapshot map
    tags=["lakeops", "zonemap"],
    default_args={
        "owner": "data-platform",
        "retries": 3,
        "retry_delay": timedelta(minutes=1),
        "retry_exponential_backoff": True,
        "max_retry_delay": timedelta(minutes=20),
    },
    params={
        "table": Param("events", type="string", pattern=r"^[a-z_][a-z0-9_]{0,62}$", description="table in lakeops.yaml"),
        "day": Param(None, type=["null", "string"], pattern=r"^\d{4}-\d{2}-\d{2}$",
                     description="day to consolidate through, e.g. 2026-11-21 (default: the data interval's day)"),
    },
) as dag:
    LakeopsSparkSubmitOperator(
        task_id="consolidate_day",
        job="zonemap_daily",
        job_args=[
            "--table", "{{ params.table }}",
            "--day", "{{ params.day or (data_interval_start.date().isoformat() if data_interval_start else '') }}",
        ],
    )
