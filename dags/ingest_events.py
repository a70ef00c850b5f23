"""
### Ingest events

Every 5 minutes, Spark reads the behavioral events that landed during the run's data interval
(`landing/events/YYYY/MM/DD/HH/mm/`) and appends them to the Iceberg table `events`,
partitioned by event day and sorted by event time.

`plan` reads the table's `ingest.commit_mode` from lakeops.yaml when the run starts, and the run
takes one of two paths:

* **direct** (default): `ingest` spark-submits one job that writes and commits the batch itself.
* **staged**: `stage` runs `ingest.writers` Spark jobs side by side (dynamic task mapping), each
  writing a disjoint share of the interval's files into the table's staging area and publishing a
  manifest; then `commit` commits every staged file in one Iceberg commit and cleans the staging.
  Writers never commit, so they never contend for the table.
* A table whose `ingest.mode` is `streaming` is ingested by the streaming DAGs: its runs here
  skip every task (ingesting it twice would commit every landed file twice).

* **Exactly once**: the batch id is derived from the data interval, so a retry, a manual
  re-run or a backfill of the same interval commits nothing twice.
* **Bad input** (malformed JSON, wrong types, missing fields) goes to `events_quarantine`
  with the raw line and the reason; the good rows still commit.
* An interval with no landed files succeeds as a no-op.

Manual runs without a data interval: set the params `start` and `end` (ISO-8601).
"""

from __future__ import annotations

import pendulum
from airflow.sdk import DAG, Param, task
from airflow.timetables.interval import CronDataIntervalTimetable

from lakeops_airflow.dag_defaults import default_args
from lakeops_airflow.deadlines import dag_deadline
from lakeops_airflow.operators import SPARK_POOL, LakeopsSparkSubmitOperator

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

    @task
    def plan(params: dict | None = None, data_interval_start=None, data_interval_end=None) -> dict:
        """The commit mode and the writer shares, from the config as it is now."""
        from lakeops.staging.tasks import plan_for

        # A run with no data interval passes "" here; planning then names the params to set.
        return plan_for(params["table"], params["start"] or (data_interval_start.isoformat() if data_interval_start else ""),
                        params["end"] or (data_interval_end.isoformat() if data_interval_end else ""))

    @task.branch
    def route(planned: dict) -> str | list[str]:
        """direct -> ingest; staged -> writers and committer; streaming (the table is streamed) -> nothing."""
        return {"direct": "ingest", "staged": ["shares", "stage", "commit"]}.get(planned["mode"], [])

    @task
    def shares(planned: dict) -> list[list[str]]:
        """The arguments of each writer job; none when the batch is already committed."""
        return [list(args) for args in planned["writer_args"]]

    @task(trigger_rule="none_failed")
    def commit(planned: dict) -> dict:
        """Commit what every writer staged, once; then clean the staging."""
        from lakeops.staging.tasks import commit_for

        return commit_for(planned)

    planned = plan()
    ingest = LakeopsSparkSubmitOperator(
        task_id="ingest",
        job="ingest_events",
        job_args=[
            "--table", "{{ params.table }}",
            # A run with no data interval renders "" here; the job then names the params to set.
            "--start", "{{ params.start or (data_interval_start.isoformat() if data_interval_start else '') }}",
            "--end", "{{ params.end or (data_interval_end.isoformat() if data_interval_end else '') }}",
        ],
    )
    # One writer per share; none when the batch is already committed (commit then only cleans up).
    writer_args = shares(planned)
    stage = LakeopsSparkSubmitOperator.partial(task_id="stage", job="stage_events", pool=SPARK_POOL).expand(
        job_args=writer_args)
    committed = commit(planned)
    route(planned) >> [ingest, writer_args, stage, committed]
    stage >> committed
