"""
### Compact a table when its health calls for it

`metrics` reads the table's health from metadata only (files, small files, delete files, read
amplification) → `plan` turns it and the table's compaction policy into actions (which
partitions; binpack, or sort by the zonemap columns; position-delete rewrite; manifest rewrite;
why; expected gain) within the per-run byte budget, and skips the rest of the run when there is
nothing to do → `compact` spark-submits `spark_jobs/compact_table.py`, which runs Iceberg's
`rewrite_data_files` / `rewrite_position_delete_files` / `rewrite_manifests` on the planned
partitions only (partial progress on; a group that conflicts with a concurrent CDC MERGE is
retried, then reported in the result), records health before and after, and reconciles the
zonemap index.

Rate limits: the Spark task runs in pool `lakeops_spark`, one run at a time, and never rewrites
more than `compaction.max_bytes_per_run_mb` per run; deferred partitions wait for the next run.

The `metrics` task stands where the health sensors (delete-file growth, read amplification)
plug in. Params: `table` (a table of lakeops.yaml), `dry_run` (plan and report, rewrite nothing).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG, Param, task
from airflow.timetables.interval import CronDataIntervalTimetable

from lakeops_airflow.operators import LakeopsSparkSubmitOperator

with DAG(
    dag_id="compact_tables",
    doc_md=__doc__,
    schedule=CronDataIntervalTimetable("*/30 * * * *", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    tags=["lakeops", "maintenance", "compaction"],
    default_args={
        "owner": "data-platform",
        "retries": 1,
        "retry_delay": timedelta(minutes=2),
    },
    params={
        "table": Param("orders", type="string", pattern=r"^[a-z_][a-z0-9_]{0,62}$", description="table in lakeops.yaml"),
        "dry_run": Param(False, type="boolean", description="plan and report only"),
    },
) as dag:

    @task
    def metrics(params: dict | None = None) -> dict:
        from lakeops.compaction.tasks import table_figures

        return table_figures(params["table"])

    @task.short_circuit
    def plan(figures: dict, params: dict | None = None) -> dict | bool:
        """The plan as XCom; False (skip the Spark job) when there is nothing to rewrite."""
        from lakeops.compaction.tasks import plan_for

        planned = plan_for(params["table"])
        return planned if planned["actions"] else False

    compact = LakeopsSparkSubmitOperator(
        task_id="compact",
        job="compact_table",
        job_args=[
            "--table", "{{ params.table }}",
            "--plan", "{{ ti.xcom_pull(task_ids='plan') | tojson }}",
            "--run-id", "{{ run_id }}",
            "{{ '--dry-run' if params.dry_run else '--no-dry-run' }}",
        ],
    )
    plan(metrics()) >> compact
