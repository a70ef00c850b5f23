"""
### Stream events: incremental micro-batches

Every 5 minutes, runs the streaming ingest query of `events` once with `trigger(availableNow=True)`:
Spark's file source picks up every file landed under `landing/events/YYYY/MM/DD/HH/mm/` since the
query's checkpoint (at most `streaming.max_files_per_trigger` files per micro-batch), commits them
and the query exits. Nothing holds a Spark slot between runs.

* **Exactly once**: each micro-batch commits under an id made of the query's id (kept in the
  checkpoint) and the micro-batch id; a micro-batch replayed after a crash or a retry is found
  already published and appends nothing.
* **Bad input** goes to `events_quarantine` with the reason; each micro-batch writes its micro zonemap.
* Use this DAG *or* `stream_events_supervisor` for a table, not both (they share the checkpoint;
  Spark refuses the second writer of a micro-batch, and the commit guard appends nothing twice).
  See README "Streaming ingest" for when to use which.
"""

from __future__ import annotations

import pendulum
from airflow.sdk import DAG, Param
from airflow.timetables.interval import CronDataIntervalTimetable

from lakeops_airflow.dag_defaults import default_args
from lakeops_airflow.deadlines import dag_deadline
from lakeops_airflow.operators import LakeopsSparkSubmitOperator

with DAG(
    dag_id="stream_events",
    doc_md=__doc__,
    # The data interval only labels the run: the checkpoint, not the interval, decides what is read.
    schedule=CronDataIntervalTimetable("*/5 * * * *", timezone="UTC"),
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    tags=["lakeops", "ingest", "streaming"],
    default_args=default_args(),
    params={
        "table": Param("events", type="string", pattern=r"^[a-z_][a-z0-9_]{0,62}$", description="table in lakeops.yaml"),
    },
    deadline=dag_deadline("stream", table="events"),
) as dag:
    LakeopsSparkSubmitOperator(
        task_id="stream_available_now",
        job="stream_events",
        job_args=["--table", "{{ params.table }}", "--mode", "available-now"],
    )
