"""One DAG per ETL model (`etl.<model>`): it keeps the model's table up to date from its sources, incrementally
and exactly once, when a source commits or on the model's schedule, and backfills it by date."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from airflow.sdk import DAG, Asset, AssetAny, AssetOrTimeSchedule, CronDataIntervalTimetable, Param, task

from lakeops.config import LakeopsConfig
from lakeops.config.models import ModelConfig
from lakeops.exceptions import ConfigError
from lakeops_airflow.assets import table_asset
from lakeops_airflow.dag_defaults import default_args
from lakeops_airflow.dags.common import START_DATE, interval_bound
from lakeops_airflow.deadlines import dag_deadline
from lakeops_airflow.operators import LakeopsSparkSubmitOperator

DAILY = "0 0 * * *"
"""The timetable of a model that runs on its sources' commits: one data interval per day, which is what
`airflow backfill create` makes one run per day of, each recomputing its date."""

ETL_DOC = """
### ETL model {model}

Keeps `{table}` up to date from {sources}: {when}. Each run reads only what changed since the last processed
source snapshots (the **watermarks**, kept in the table's snapshot summary in the same commit as the data), so a
retry or a crash neither skips nor double-counts; rows whose `{recompute}` values a change touches are recomputed
and merged on the key `{key}`. An expired watermark snapshot is logged and answered by a recompute of the dates
the sources changed on since it (of the whole table when those cannot be told from the metadata).

**Backfills by date**: `airflow backfill create --dag-id {dag_id} --from-date 2026-11-20 --to-date 2026-11-21`
(or the UI's backfill form): each run replaces the rows of its date (by `{partition}`) with rows recomputed
from the sources' current snapshots; backfills are idempotent, may run in any order and never move the
watermarks. A manual run with the params `from_date`/`to_date` recomputes that range; `full_recompute` rebuilds
the whole table. From a shell: `lakeops etl run {model} [--full] [--from D --to D]`.

**No work, no Spark**: `has_work` plans the run from the catalog's metadata; when every source is at its watermark,
`etl` (the spark-submit) is skipped and no asset event is emitted for the models that read `{table}`.
"""


def dag_id_of(model: str) -> str:
    return f"etl.{model}"


def emits_commits(config: LakeopsConfig, identifier: str) -> bool:
    """Whether lakeops' own tasks emit the table's asset when they commit: its ingest DAG's, its stream DAG's runs
    that end (a supervised stream commits for an hour without emitting), or the DAG of the model that writes it."""
    if config.model_writing(identifier) is not None:
        return True
    try:
        spec = config.table(identifier)
    except ConfigError:  # neither configured nor discovered: written by another tool
        return False
    return spec.ingested and not (spec.ingest.mode == "streaming" and spec.streaming.runner == "supervised")


def _source_asset(config: LakeopsConfig, identifier: str) -> Asset:
    """A source's asset: emitted by lakeops' ingest or ETL tasks, or watched in the triggerer for the other writers' commits."""
    watch = None if emits_commits(config, identifier) else config.health.watch_interval_seconds
    return table_asset(identifier, watch)


def _schedule(config: LakeopsConfig, model: ModelConfig) -> CronDataIntervalTimetable | AssetOrTimeSchedule:
    """The model's cron as a real data interval; else its sources' assets, or a day's interval."""
    if model.schedule:
        return CronDataIntervalTimetable(model.schedule, timezone="UTC")
    assets = [_source_asset(config, config.identifier(model.source_table(name))) for name in model.sources]
    return AssetOrTimeSchedule(timetable=CronDataIntervalTimetable(DAILY, timezone="UTC"), assets=AssetAny(*assets))


def etl_model_dag(config: LakeopsConfig, model: ModelConfig) -> DAG:
    sources = ", ".join(f"`{config.identifier(model.source_table(n))}` ({model.source(n).kind})" for n in model.sources)
    when = f"on the schedule `{model.schedule}`" if model.schedule else "whenever one of them commits (and daily)"
    dag_id = dag_id_of(model.name)
    doc = ETL_DOC.format(model=model.name, table=config.identifier(model.table_name), sources=sources, when=when,
                         recompute=", ".join(model.recompute_columns), key=", ".join(model.key),
                         partition=model.partition_column, dag_id=dag_id)
    with DAG(
        dag_id=dag_id,
        doc_md=doc,
        schedule=_schedule(config, model),
        start_date=START_DATE,
        catchup=False,
        max_active_runs=1,
        tags=["lakeops", "etl"],
        default_args=default_args(retry_delay=timedelta(minutes=1), max_retry_delay=timedelta(minutes=10)),
        deadline=dag_deadline("etl"),
        params={
            "from_date": Param(None, type=["null", "string"], format="date",
                               description="recompute the partitions from this date (YYYY-MM-DD), with to_date"),
            "to_date": Param(None, type=["null", "string"], format="date",
                             description="last date to recompute (inclusive), with from_date"),
            "full_recompute": Param(False, type="boolean", description="rebuild the whole table from its sources"),
        },
    ) as dag:
        @task.short_circuit
        def has_work(params: dict | None = None, dag_run: Any = None, data_interval_start: Any = None) -> bool:
            """Whether a source moved since its watermarks (or the run backfills or recomputes), from metadata alone:
            when none did, the etl task is skipped, and emits no asset event that would start the models downstream."""
            from lakeops.etl.tasks import run_has_work

            params = params or {}
            return run_has_work(model.name, bool(params.get("full_recompute")), str(dag_run.run_type) if dag_run else None,
                                data_interval_start.isoformat() if data_interval_start else None,
                                params.get("from_date"), params.get("to_date"))

        has_work() >> LakeopsSparkSubmitOperator(
            task_id="etl",
            job="incremental_etl",
            # A model reading this one's table runs when this task commits to it, without polling it.
            outlets=[table_asset(config.identifier(model.table_name))],
            job_args=[
                "--model", model.name,
                "--from-date", "{{ params.from_date or '' }}",
                "--to-date", "{{ params.to_date or '' }}",
                "--full-recompute", "{{ params.full_recompute }}",
                "--run-type", "{{ dag_run.run_type.value if dag_run.run_type.value is defined else dag_run.run_type }}",
                "--interval-start", f"{{{{ {interval_bound('data_interval_start')} }}}}",
            ],
        )
    return dag
