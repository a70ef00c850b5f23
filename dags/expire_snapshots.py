"""
### Expire snapshots and orphan files

Daily, per table, under the table's `retention` policy in `lakeops.yaml`, a Spark job runs
Iceberg's `remove_orphan_files` and `expire_snapshots`, then deletes the zonemap files only
expired snapshots used.

* **Guards**: a snapshot a downstream table's watermark names, or that a running compaction
  started from, is kept and reported; every branch and tag head is kept.
* **Refused**: an orphan window under 24 hours, an `older_than` in the future, `retain_last` < 1.
* **Location mismatches** (s3 vs s3a, a changed authority) stop the run before anything is deleted.
* **dry_run**: lists what would go, with counts and bytes, and changes nothing.
* **Backfill by date**: the policy's ages count back from the run's data interval end, so an
  older date expires less, never more.

The job prints one `LAKEOPS_RESULT` line: snapshots expired, files and bytes removed, orphans found,
zonemap files collected, refs and snapshots kept by guards.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG, Param
from airflow.timetables.interval import CronDataIntervalTimetable

from lakeops_airflow.dag_defaults import default_args
from lakeops_airflow.deadlines import dag_deadline
from lakeops_airflow.operators import LakeopsSparkSubmitOperator

with DAG(
    dag_id="expire_snapshots",
    doc_md=__doc__,
    schedule=CronDataIntervalTimetable("30 3 * * *", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    tags=["lakeops", "maintenance"],
    default_args=default_args(retries=1, retry_delay=timedelta(minutes=5)),
    deadline=dag_deadline("expiry"),
    params={
        "table": Param("events", type="string", pattern=r"^[a-z_][a-z0-9_]{0,62}$", description="table in lakeops.yaml"),
        "dry_run": Param(False, type="boolean", description="list what would go, change nothing"),
        "older_than": Param(None, type=["null", "string"], format="date-time",
                            description="expire snapshots older than this instead of retention.max_snapshot_age_hours"),
        "retain_last": Param(None, type=["null", "integer"], minimum=1,
                             description="snapshots kept per branch instead of retention.min_snapshots"),
        "orphan_min_age_hours": Param(None, type=["null", "integer"], minimum=24,
                                      description="orphan window instead of retention.orphan_min_age_hours"),
    },
) as dag:
    LakeopsSparkSubmitOperator(
        task_id="expire",
        job="expire_snapshots",
        job_args=[
            "--table", "{{ params.table }}",
            "--as-of", "{{ data_interval_end.isoformat() if data_interval_end else '' }}",
            "--older-than", "{{ params.older_than or '' }}",
            "--retain-last", "{{ params.retain_last if params.retain_last is not none else '' }}",
            "--orphan-min-age-hours", "{{ params.orphan_min_age_hours if params.orphan_min_age_hours is not none else '' }}",
            "--dry-run", "{{ 'true' if params.dry_run else 'false' }}",
        ],
    )
