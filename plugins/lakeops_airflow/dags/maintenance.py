"""Snapshot expiry and zonemap consolidation of every maintained table they apply to: a task lists the tables
at run time (configured and discovered), then one mapped spark-submit per table, labelled with its name."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from airflow.sdk import DAG, Param, task
from airflow.timetables.interval import CronDataIntervalTimetable

from lakeops_airflow.dag_defaults import default_args
from lakeops_airflow.dags.common import START_DATE, TABLE_LABEL, list_tables, table_args, tables_param
from lakeops_airflow.deadlines import dag_deadline
from lakeops_airflow.operators import SPARK_POOL, LakeopsSparkSubmitOperator

EXPIRY_DOC = """
### Expire snapshots and orphan files

Daily, for every maintained table, under its retention policy (config defaults, then its own properties such as
`history.expire.max-snapshot-age-ms`, then its config entry): one Spark job per table runs Iceberg's
`remove_orphan_files` and `expire_snapshots`, then deletes the zonemap files only expired snapshots used.
Guards keep every branch and tag head, the snapshots downstream watermarks and streaming checkpoints name, and a
running compaction's start. Refused: an orphan window under 24 hours. `dry_run` lists what would go. The ages
count back from the run's data interval end, so a backfill of an older date expires less, never more:
`airflow backfill create --dag-id expire_snapshots --from-date ... --to-date ... --dag-run-conf '{"tables": ["ns.t"]}'`.
"""

ZONEMAP_DOC = """
### Zonemap: {level}

{what} For every maintained table with zonemap columns, one Spark job per table. A backfill of an older
{unit} is safe: `airflow backfill create --dag-id zonemap_{level} ...` (the `tables` param narrows it).
"""


def expire_snapshots_dag() -> DAG:
    params = {
        "tables": tables_param("expire"),
        "dry_run": Param(False, type="boolean", description="list what would go, change nothing"),
        "older_than": Param(None, type=["null", "string"], format="date-time",
                            description="expire snapshots older than this instead of the retention policy's age"),
        "retain_last": Param(None, type=["null", "integer"], minimum=1,
                             description="snapshots kept per branch instead of retention.min_snapshots"),
        "orphan_min_age_hours": Param(None, type=["null", "integer"], minimum=24,
                                      description="orphan window instead of retention.orphan_min_age_hours"),
    }
    with DAG(dag_id="expire_snapshots", doc_md=EXPIRY_DOC, schedule=CronDataIntervalTimetable("30 3 * * *", timezone="UTC"),
             start_date=START_DATE, catchup=False, max_active_runs=1, tags=["lakeops", "maintenance"],
             default_args=default_args(retries=1, retry_delay=timedelta(minutes=5)), deadline=dag_deadline("expiry"),
             params=params) as dag:

        @task
        def expiry_args(tables: Any, params: dict[str, Any] | None = None,
                        data_interval_end: Any = None) -> list[list[str]]:
            params = params or {}
            extra = ["--as-of", data_interval_end.isoformat() if data_interval_end else "",
                     "--older-than", params.get("older_than") or "",
                     "--retain-last", "" if params.get("retain_last") is None else str(params["retain_last"]),
                     "--orphan-min-age-hours",
                     "" if params.get("orphan_min_age_hours") is None else str(params["orphan_min_age_hours"]),
                     "--dry-run", "true" if params.get("dry_run") else "false"]
            return table_args(tables, *extra)

        args = expiry_args(list_tables.override(task_id="tables")(kind="expiry"))
        LakeopsSparkSubmitOperator.partial(pool=SPARK_POOL, task_id="expire", job="expire_snapshots",
                                           map_index_template=TABLE_LABEL).expand(job_args=args)
    return dag


def zonemap_dag(level: str) -> DAG:
    hourly = level == "hourly"
    what = ("Every hour, the micro zonemaps of the hour that just closed are merged into one hourly zonemap, published "
            "atomically and recorded in the snapshot map; the micro zonemaps it covers are then removed." if hourly else
            "Every day, the previous master, the hourly zonemaps and any micro zonemaps through the end of the day are "
            "rolled into a new daily master, reconciled with the current snapshot's live files (entries of dropped "
            "files go, files without an entry get one from Iceberg's manifest metrics: tables written by other "
            "engines are indexed too).")
    param = ("hour", Param(None, type=["null", "string"], pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:00(:00)?(Z|[+-]\d{2}:\d{2})$",
                           description="hour to consolidate (default: the hour before the data interval's end)")) if hourly \
        else ("day", Param(None, type=["null", "string"], pattern=r"^\d{4}-\d{2}-\d{2}$",
                           description="day to consolidate through (default: the data interval's day)"))
    with DAG(dag_id=f"zonemap_{level}", doc_md=ZONEMAP_DOC.format(level=level, what=what, unit=param[0]),
             # hourly: the tick at HH:05 closes hour HH-1; daily: the tick at 00:30 closes the previous day.
             schedule=CronDataIntervalTimetable("5 * * * *" if hourly else "30 0 * * *", timezone="UTC"),
             start_date=START_DATE, catchup=False, max_active_runs=1,  # each run rewrites the level's snapshot map
             tags=["lakeops", "zonemap"], default_args=default_args(retries=3, max_retry_delay=timedelta(minutes=20)),
             deadline=dag_deadline("consolidation"), params={"tables": tables_param("consolidate"), param[0]: param[1]}) as dag:

        @task
        def consolidation_args(tables: Any, params: dict[str, Any] | None = None,
                               data_interval_start: Any = None) -> list[list[str]]:
            chosen = (params or {}).get(param[0])
            if not chosen and data_interval_start is not None:
                chosen = (data_interval_start.replace(minute=0, second=0, microsecond=0).isoformat() if hourly
                          else data_interval_start.date().isoformat())
            return table_args(tables, f"--{param[0]}", chosen or "")

        args = consolidation_args(list_tables.override(task_id="tables")(kind="zonemap"))
        LakeopsSparkSubmitOperator.partial(pool=SPARK_POOL, task_id=f"consolidate_{param[0]}", job=f"zonemap_{level}",
                                           map_index_template=TABLE_LABEL).expand(job_args=args)
    return dag
