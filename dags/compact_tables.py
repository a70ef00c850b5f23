"""
### Compact a table when its health calls for it

Three health sensors read the table's metadata only (read amplification, including the whole
table's file amplification; delete-file growth; small files; thresholds from lakeops.yaml) →
when at least one fires, `plan` turns it and the table's compaction policy into actions (which
partitions; binpack, or sort by the zonemap columns; position-delete rewrite; the drop of
dangling delete files; manifest rewrite; why; expected gain) within the per-run byte budget, one
procedure call per kind of rewrite over all its partitions, and skips the rest of the run when
there is nothing to do → `compact` spark-submits `spark_jobs/compact_table.py`, which runs
Iceberg's `rewrite_data_files` / `rewrite_position_delete_files` / `rewrite_manifests` on the
planned partitions only and drops dangling delete files in one metadata-only commit (a call that
conflicts with a concurrent CDC MERGE is retried with partial progress on, and what still
conflicts is reported in the result), records health before and after, and reconciles the
zonemap index.

Rate limits: the Spark task runs in pool `lakeops_spark`, one run at a time, and never rewrites
more than `compaction.max_bytes_per_run_mb` per run; deferred partitions wait for the next run.

Each sensor checks once per scheduled run (the schedule is the poke interval): over threshold it
succeeds with the partitions as XCom, below it soft-fails (skipped), and when all three are
skipped the run ends without planning or Spark. Params: `table` (a table of lakeops.yaml),
`dry_run` (plan and report, rewrite nothing).

`compact_on_health` makes the same checks in the triggerer instead, without check runs: run one of the two.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG, Param, task
from airflow.timetables.interval import CronDataIntervalTimetable

from lakeops_airflow.dag_defaults import default_args
from lakeops_airflow.deadlines import dag_deadline
from lakeops_airflow.operators import LakeopsSparkSubmitOperator
from lakeops_airflow.sensors import DeleteFileGrowthSensor, ReadAmplificationSensor, SmallFilesSensor

# One check per run: a healthy table skips the sensor (soft_fail) instead of holding a slot.
ONE_CHECK = {"mode": "poke", "poke_interval": 5, "timeout": 1, "soft_fail": True}

with DAG(
    dag_id="compact_tables",
    doc_md=__doc__,
    # Every 10 minutes, twice the ingest interval: a CDC table's allowance of extra files
    # (compaction.max_file_amplification) fills in a few intervals, and a check that finds nothing
    # over threshold costs a metadata read and no Spark.
    schedule=CronDataIntervalTimetable("*/10 * * * *", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    tags=["lakeops", "maintenance", "compaction"],
    default_args=default_args(retries=1, retry_delay=timedelta(minutes=2)),
    deadline=dag_deadline("compaction"),
    params={
        "table": Param("orders", type="string", pattern=r"^[a-z_][a-z0-9_]{0,62}$", description="table in lakeops.yaml"),
        "dry_run": Param(False, type="boolean", description="plan and report only"),
    },
) as dag:

    sensors = [
        sensor(task_id=task_id, table="{{ params.table }}", **ONE_CHECK)
        for task_id, sensor in (("read_amplification", ReadAmplificationSensor),
                                ("delete_growth", DeleteFileGrowthSensor), ("small_files", SmallFilesSensor))
    ]

    @task.short_circuit(trigger_rule="none_failed_min_one_success")
    def plan(params: dict | None = None) -> dict | bool:
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
    sensors >> plan() >> compact
