"""One ingest DAG per configured table that has a `source` (or an `ingest.kafka` topic): JSON-lines events (direct
or staged commits) or Debezium change events (merged), over real data intervals, exactly once; or the table's
streaming query."""

from __future__ import annotations

import functools
from datetime import timedelta
from typing import Any

from airflow.sdk import DAG, Param, task
from airflow.timetables.interval import CronDataIntervalTimetable

from lakeops.config import STREAM_MAX_RUN_SECONDS, TableConfig
from lakeops_airflow.assets import table_asset
from lakeops_airflow.dag_defaults import INGEST_PRIORITY, default_args
from lakeops_airflow.dags.common import START_DATE, interval_bound
from lakeops_airflow.deadlines import dag_deadline
from lakeops_airflow.operators import SPARK_POOL, LakeopsSparkSubmitOperator

START = f"{{{{ params.start or {interval_bound('data_interval_start')} }}}}"
END = f"{{{{ params.end or {interval_bound('data_interval_end')} }}}}"

EVENTS_DOC = """
### Ingest {table}: events

Every {minutes} minutes, Spark reads the JSON lines {input} and appends them to `{table}`,
exactly once (the batch id is derived from the interval: a
retry, a re-run or a backfill commits nothing twice). Bad lines go to `{quarantine}` with the reason; the good
rows still commit. `plan` reads `ingest.commit_mode` when the run starts: **direct** runs one job that writes
and commits; **staged** runs `ingest.writers` writer jobs side by side and one commit. Manual runs with no data
interval: params `start` and `end` (ISO-8601). Backfill by date: `airflow backfill create --dag-id {dag_id} ...`.
"""

CDC_DOC = """
### Ingest {table}: change data

Every {minutes} minutes, Spark reads the Debezium change events {input}, reduces them to the last change per
key in source order and merges them into
`{table}` (merge-on-read), exactly once. Envelopes that cannot be applied go to `{quarantine}` with the reason.
Intervals apply in order, one run at a time. Manual runs: params `start` and `end` (ISO-8601).
"""

STREAM_DOC = """
### Stream {table}

A Spark Structured Streaming query over {source} commits each micro-batch to `{table}` exactly once (its id
is the query's id and the micro-batch id, kept in the checkpoint). **{runner}**: {how}
"""


def _input(spec: TableConfig) -> str:
    """Where a run's input comes from, for the DAG's doc."""
    if spec.ingest.kafka is not None:
        return (f"that arrived on Kafka topic `{spec.ingest.kafka.topic}` since the last commit (whose snapshot summary "
                "holds the offsets it read up to)")
    return f"that landed under `{spec.source_dir}/YYYY/MM/DD/HH/mm/` during the run's data interval"


@functools.cache
def _interval_schedule(minutes: int) -> CronDataIntervalTimetable:
    """The timetable of an ingest interval, one instance shared by every DAG with that interval."""
    return CronDataIntervalTimetable("0 * * * *" if minutes == 60 else f"*/{minutes} * * * *", timezone="UTC")


def _params() -> dict[str, Param]:
    return {"start": Param(None, type=["null", "string"], format="date-time", description="override the interval start"),
            "end": Param(None, type=["null", "string"], format="date-time", description="override the interval end")}


def ingest_dag(spec: TableConfig) -> DAG:
    """The ingest DAG of one table: `ingest.<namespace>.<table>`."""
    dag_id = f"ingest.{spec.name}"
    doc = (CDC_DOC if spec.ingest.format == "cdc" else EVENTS_DOC).format(
        table=spec.name, minutes=spec.ingest_interval_minutes, input=_input(spec), quarantine=spec.quarantine_name,
        dag_id=dag_id)
    with DAG(dag_id=dag_id, doc_md=doc, schedule=_interval_schedule(spec.ingest_interval_minutes), start_date=START_DATE,
             catchup=False, max_active_runs=1, tags=["lakeops", "ingest", spec.ingest.format],
             default_args=default_args(priority_weight=INGEST_PRIORITY), params=_params(),
             deadline=dag_deadline("ingest", table=spec.name)) as dag:
        if spec.ingest.format == "cdc":
            LakeopsSparkSubmitOperator(task_id="ingest", job="ingest_cdc", outlets=[table_asset(spec.name)],
                                       job_args=["--table", spec.name, "--start", START, "--end", END])
        else:
            _events_tasks(spec.name)
    return dag


def _events_tasks(table: str) -> None:
    @task
    def plan(params: dict | None = None, data_interval_start=None, data_interval_end=None) -> dict:
        """The commit mode and the writer shares, from the config as it is now."""
        from lakeops.staging.tasks import plan_for

        params = params or {}
        # A run with no data interval passes "" here; planning then names the params to set.
        return plan_for(table, params.get("start") or (data_interval_start.isoformat() if data_interval_start else ""),
                        params.get("end") or (data_interval_end.isoformat() if data_interval_end else ""))

    @task.branch
    def route(planned: Any) -> str | list[str]:
        """direct -> ingest; staged -> writers and committer; streaming (the table is streamed) -> nothing."""
        routes: dict[str, str | list[str]] = {"direct": "ingest", "staged": ["shares", "stage", "commit"]}
        return routes.get(planned["mode"], [])

    @task
    def shares(planned: Any) -> list[list[str]]:
        """The arguments of each writer job; none when the batch is already committed."""
        return [list(args) for args in planned["writer_args"]]

    @task(trigger_rule="none_failed", outlets=[table_asset(table)])
    def commit(planned: Any) -> dict:
        """Commit what every writer staged, once; then clean the staging."""
        from lakeops.staging.tasks import commit_for

        return commit_for(planned)

    planned = plan()
    ingest = LakeopsSparkSubmitOperator(task_id="ingest", job="ingest_events", outlets=[table_asset(table)],
                                        job_args=["--table", table, "--start", START, "--end", END])
    writer_args = shares(planned)
    stage = LakeopsSparkSubmitOperator.partial(task_id="stage", job="stage_events", pool=SPARK_POOL).expand(
        job_args=writer_args)
    committed = commit(planned)
    route(planned) >> [ingest, writer_args, stage, committed]
    stage >> committed


def stream_dag(spec: TableConfig) -> DAG:
    """The streaming DAG of one table: `stream.<namespace>.<table>`, as its streaming.runner says."""
    dag_id = f"stream.{spec.name}"
    supervised = spec.streaming.runner == "supervised"
    how = ("a long-running query with a processing-time trigger, run for `streaming.run_seconds` and then restarted "
           "(the next run resumes from the checkpoint); freshness in seconds, one pool slot held."
           if supervised else f"every {spec.ingest_interval_minutes} minutes the query runs once with "
           "`trigger(availableNow=True)` over everything landed since the checkpoint, then exits.")
    source = f"Kafka topic `{spec.ingest.kafka.topic}`" if spec.ingest.kafka is not None else f"`{spec.source_dir}/`"
    doc = STREAM_DOC.format(table=spec.name, source=source, runner=spec.streaming.runner, how=how)
    if supervised:
        params = {
            "run_seconds": Param(None, type=["null", "integer"], minimum=10, maximum=STREAM_MAX_RUN_SECONDS,
                                 description="length of this run (default: the table's streaming.run_seconds)"),
            "trigger_seconds": Param(None, type=["null", "integer"], minimum=1, maximum=3600,
                                     description="processing-time trigger (default: streaming.trigger_interval_seconds)"),
        }
        with DAG(dag_id=dag_id, doc_md=doc, schedule="@continuous", start_date=START_DATE, catchup=False,
                 max_active_runs=1, tags=["lakeops", "ingest", "streaming"],
                 default_args=default_args(retries=5, retry_delay=timedelta(seconds=15), priority_weight=INGEST_PRIORITY),
                 params=params,
                 deadline=dag_deadline("stream_supervisor", table=spec.name)) as dag:
            LakeopsSparkSubmitOperator(
                task_id="stream_supervised", job="stream_events",
                job_args=["--table", spec.name, "--mode", "supervised", "--run-seconds", "{{ params.run_seconds }}",
                          "--trigger-seconds", "{{ params.trigger_seconds }}"],
                # A hung driver is killed and retried: no run lasts longer than the longest allowed run plus start-up.
                execution_timeout=timedelta(seconds=STREAM_MAX_RUN_SECONDS) + timedelta(minutes=30))
        return dag
    with DAG(dag_id=dag_id, doc_md=doc, schedule=_interval_schedule(spec.ingest_interval_minutes), start_date=START_DATE,
             catchup=False, max_active_runs=1, tags=["lakeops", "ingest", "streaming"],
             default_args=default_args(priority_weight=INGEST_PRIORITY),
             deadline=dag_deadline("stream", table=spec.name)) as dag:
        LakeopsSparkSubmitOperator(task_id="stream_available_now", job="stream_events", outlets=[table_asset(spec.name)],
                                   job_args=["--table", spec.name, "--mode", "available-now"])
    return dag
