"""
### Stream events: supervise a long-running query

Keeps the streaming ingest query of `events` running: one run at a time, and the next run starts
as soon as one ends (`@continuous`). Each run spark-submits the query with a processing-time trigger
(`streaming.trigger_interval_seconds`) for `streaming.run_seconds`, then stops it between
micro-batches; the next run resumes from the checkpoint. The task log shows every micro-batch
(files, rows, quarantined, snapshot; Spark's input rows and timings) and a heartbeat each minute.

* **When it dies** (driver crash, lost executor, a failing micro-batch), the task fails and is
  retried with exponential backoff; the restarted query replays the unfinished micro-batch exactly once.
  When the retries are spent the run fails (and alerts), and the next run starts right away.
* **Bounded runs** keep logs, resource leaks and deploys of new code to one run's length; the deadline
  alert (`alerts.deadline_minutes.stream_supervisor`) fires when a run outlives its expected length.
* Use this DAG *or* `stream_events`, not both (see README "Streaming ingest").

Params: `table`; `run_seconds` and `trigger_seconds` override the table's streaming config for a run.
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG, Param

from lakeops.config import STREAM_MAX_RUN_SECONDS
from lakeops_airflow.dag_defaults import default_args
from lakeops_airflow.deadlines import dag_deadline
from lakeops_airflow.operators import LakeopsSparkSubmitOperator

with DAG(
    dag_id="stream_events_supervisor",
    doc_md=__doc__,
    schedule="@continuous",
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,  # @continuous requires it: one query per checkpoint
    tags=["lakeops", "ingest", "streaming"],
    # A died query restarts fast: 5 retries from 15 s doubling up to 5 min.
    default_args=default_args(retries=5, retry_delay=timedelta(seconds=15)),
    params={
        "table": Param("events", type="string", pattern=r"^[a-z_][a-z0-9_]{0,62}$", description="table in lakeops.yaml"),
        "run_seconds": Param(None, type=["null", "integer"], minimum=10, maximum=STREAM_MAX_RUN_SECONDS,
                             description="length of this run (default: the table's streaming.run_seconds)"),
        "trigger_seconds": Param(None, type=["null", "integer"], minimum=1, maximum=3600,
                                 description="processing-time trigger (default: streaming.trigger_interval_seconds)"),
    },
    deadline=dag_deadline("stream_supervisor", table="events"),
) as dag:
    LakeopsSparkSubmitOperator(
        task_id="stream_supervised",
        job="stream_events",
        job_args=[
            "--table", "{{ params.table }}",
            "--mode", "supervised",
            "--run-seconds", "{{ params.run_seconds }}",
            "--trigger-seconds", "{{ params.trigger_seconds }}",
        ],
        # A hung driver is killed and retried: no run may last longer than the longest allowed run plus start-up.
        execution_timeout=timedelta(seconds=STREAM_MAX_RUN_SECONDS) + timedelta(minutes=30),
    )
