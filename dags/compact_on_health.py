"""
### Compact tables when their health calls for it, from the triggerer

compact_tables' checks without its check runs. An asset watcher (`TableHealthWatchTrigger`) runs
in Airflow's triggerer: every minute it reads each configured table's current snapshot from
metadata, and when a new one has been committed it evaluates the table's health with the three
sensors' checks at the thresholds of lakeops.yaml (recorded in the health history). A table over
a threshold whose plan has something to rewrite (the planner runs there too, on the same health)
records an event on the asset `lakeops_table_health`, at most one per table every 5
minutes (the ingest interval) and again after that for as long as it stays over. Events start a
run (one at a time; an event during a run queues the next, which plans on what that run left):
`plan` plans each table they name as compact_tables does (which partitions; binpack or sort by the
zonemap columns; position-delete rewrite; dangling deletes; manifests; the per-run byte budget) →
`compact` spark-submits `spark_jobs/compact_table.py` once per table with something to do (pool
`lakeops_spark`).

A table that needs nothing starts no run and no task. Unpausing this DAG starts the watcher and
pausing it stops it; run this DAG or compact_tables, not both. Manual runs: `tables` (empty: every
configured table), `dry_run` (plan and report, rewrite nothing).
"""

from __future__ import annotations

from datetime import timedelta

import pendulum
from airflow.sdk import DAG, Asset, AssetWatcher, Param, task

from lakeops_airflow.dag_defaults import default_args
from lakeops_airflow.deadlines import dag_deadline
from lakeops_airflow.operators import LakeopsSparkSubmitOperator
from lakeops_airflow.triggers import TableHealthWatchTrigger

TABLE_HEALTH = Asset(
    name="lakeops_table_health",
    watchers=[AssetWatcher(name="lakeops_table_health_watch",
                           trigger=TableHealthWatchTrigger(poke_interval=60, min_event_interval=300))],
)

with DAG(
    dag_id="compact_on_health",
    doc_md=__doc__,
    schedule=TABLE_HEALTH,
    start_date=pendulum.datetime(2026, 11, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    tags=["lakeops", "maintenance", "compaction"],
    default_args=default_args(retries=1, retry_delay=timedelta(minutes=2)),
    deadline=dag_deadline("compaction"),
    params={
        "tables": Param([], type="array", items={"type": "string", "pattern": r"^[a-z_][a-z0-9_]{0,62}$"},
                        description="tables to plan on a manual run (empty: every table in lakeops.yaml)"),
        "dry_run": Param(False, type="boolean", description="plan and report only"),
    },
) as dag:

    @task
    def plan(params: dict | None = None, triggering_asset_events=None, run_id: str | None = None) -> list[list[str]]:
        """compact_table.py's arguments for each table the events name whose plan has actions."""
        from lakeops.compaction.tasks import compact_job_args, plan_for, tables_to_plan
        from lakeops.config import load_config

        config = load_config()
        extras = [event.extra for events in (triggering_asset_events or {}).values() for event in events]
        tables = tables_to_plan(extras, params["tables"], list(config.tables))
        plans = {table: plan_for(table, config) for table in tables}
        return [compact_job_args(table, planned, run_id, params["dry_run"])
                for table, planned in plans.items() if planned["actions"]]

    LakeopsSparkSubmitOperator.partial(task_id="compact", job="compact_table").expand(job_args=plan())
