"""
### Zonemap: hourly consolidation

Every hour, a Spark job rolls the micro zonemaps of the snapshots committed during the run's data
interval (one hour) into one hourly zonemap of the table, and reconciles it with the live files of
the current snapshot: entries of files gone (compaction, expiry, overwrite) are dropped, live
files without an entry get one from Iceberg's manifest metrics. The drift (coverage, stale
entries) is in the task log and the job's result line.

The new version is published atomically and recorded in the snapshot map
(`_zonemaps/map/hourly.json`); micro files stay until the daily master covers them.

* Backfill by date: `airflow backfill create --dag-id zonemap_hourly --from-date 2026-11-21 --to-date 2026-11-22`
* Manual run for one hour: params `table` and `hour` (ISO-8601, on the hour).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG, Param
from airflow.timetables.interval import CronDataIntervalTimetable

from lakeops_airflow.operators import LakeopsSparkSubmitOperator

with DAG(
    dag_id="zonemap_hourly",
    doc_md=__doc__,
    # The data interval is the hour consolidated: [HH:00, HH+1:00).
    schedule=CronDataIntervalTimetable("5 * * * *", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,  # each run rewrites the level's snapshot map
    tags=["lakeops", "zonemap"],
    default_args={
        "owner": "data-platform",
        "retries": 3,
        "retry_delay": timedelta(seconds=30),
        "retry_exponential_backoff": True,
        "max_retry_delay": timedelta(minutes=10),
    },
    params={
        "table": Param("events", type="string", pattern=r"^[a-z_][a-z0-9_]{0,62}$", description="table in lakeops.yaml"),
        "hour": Param(None, type=["null", "string"], pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:00(:00)?(Z|[+-]\d{2}:\d{2})$",
                      description="hour to consolidate, e.g. 2026-11-21T10:00:00+00:00 (default: the data interval's hour)"),
    },
) as dag:
    LakeopsSparkSubmitOperator(
        task_id="consolidate_hour",
        job="zonemap_hourly",
        job_args=[
            "--table", "{{ params.table }}",
            # The cron ticks at HH:05, so the interval starts five minutes into the hour it closes.
            "--hour", "{{ params.hour or (data_interval_start.replace(minute=0, second=0, microsecond=0).isoformat() "
                      "if data_interval_start else '') }}",
        ],
    )
