"""The two ways a table's compaction starts, chosen per table by `compaction.trigger`: `schedule` (compact_tables:
the three health sensors every 10 minutes) or `watch` (compact_on_health: the triggerer's health watch)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from airflow.sdk import DAG, Asset, AssetWatcher, Param, task
from airflow.timetables.interval import CronDataIntervalTimetable

from lakeops.config import HealthConfig
from lakeops_airflow.dag_defaults import default_args
from lakeops_airflow.dags.common import START_DATE, TABLE_LABEL, list_tables, tables_param
from lakeops_airflow.deadlines import dag_deadline
from lakeops_airflow.operators import SPARK_POOL, LakeopsSparkSubmitOperator
from lakeops_airflow.sensors import DeleteFileGrowthSensor, ReadAmplificationSensor, SmallFilesSensor
from lakeops_airflow.triggers import TableHealthWatchTrigger

# One check per run: a healthy table skips the sensor (soft_fail) instead of holding a slot.
ONE_CHECK = {"mode": "poke", "poke_interval": 5, "timeout": 1, "soft_fail": True}
SENSORS = (("read_amplification", ReadAmplificationSensor), ("delete_growth", DeleteFileGrowthSensor),
           ("small_files", SmallFilesSensor))
DRY_RUN = Param(False, type="boolean", description="plan and report only")

SCHEDULED_DOC = """
### Compact tables on a schedule

For every maintained table whose `compaction.trigger` is `schedule`: three health sensors read its metadata only
(read amplification, delete-file growth, small files; thresholds from its settings), each a mapped task under
the table's name. `plan` plans the tables where one fired (which partitions; binpack or sort by the zonemap
columns; delete-file rewrites; dangling deletes; manifests; the per-run byte budget) and `compact` spark-submits
`compact_table.py` once per table with something to do, in pool `lakeops_spark`. A table that needs nothing
starts no Spark job; a table whose planning fails is named by `report`, and the others are compacted.
Params: `tables` (empty: every table it applies to), `dry_run`.
"""

WATCH_DOC = """
### Compact tables when their health calls for it, from the triggerer

For every maintained table whose `compaction.trigger` is `watch`: an asset watcher (`TableHealthWatchTrigger`)
in Airflow's triggerer reads each table's current snapshot every minute; on a new one it evaluates the table's
health (recorded in the history), and a table over a threshold whose plan has something to rewrite records an
event on `lakeops_table_health` (at most one per table every 5 minutes, again while it stays over). Events start
a run: `plan` plans the tables they name, `compact` runs one mapped spark-submit per table with actions.
Unpausing this DAG starts the watcher. Manual runs: `tables`, `dry_run`.
"""


@task(trigger_rule="all_done")
def report(ti: Any = None) -> None:
    """Fail the run when some table's planning failed (the others were compacted), naming each."""
    from lakeops.exceptions import MaintenanceError

    failed = ti.xcom_pull(task_ids="plan", key="failed") or {}
    if failed:
        raise MaintenanceError("planning failed for " + "; ".join(f"{t}: {e}" for t, e in failed.items()))


def compact_tables_dag() -> DAG:
    with DAG(dag_id="compact_tables", doc_md=SCHEDULED_DOC,
             # Every 10 minutes: a check that finds nothing over threshold costs a metadata read and no Spark.
             schedule=CronDataIntervalTimetable("*/10 * * * *", timezone="UTC"), start_date=START_DATE, catchup=False,
             max_active_runs=1, tags=["lakeops", "maintenance", "compaction"],
             default_args=default_args(retries=1, retry_delay=timedelta(minutes=2)), deadline=dag_deadline("compaction"),
             params={"tables": tables_param("compact"), "dry_run": DRY_RUN}) as dag:
        tables = list_tables.override(task_id="tables")(kind="compaction_schedule")
        sensors = [sensor.partial(task_id=task_id, map_index_template="{{ task.table }}", **ONE_CHECK).expand(table=tables)
                   for task_id, sensor in SENSORS]

        @task(trigger_rule="all_done")
        def plan(tables: Any, params: dict[str, Any] | None = None, run_id: str | None = None,
                 ti: Any = None) -> list[list[str]]:
            """Plan the tables where a sensor fired: their job arguments (XCom `failed`: tables whose planning failed)."""
            from lakeops.compaction.tasks import plan_jobs

            fired = [table for index, table in enumerate(tables)
                     if any(ti.xcom_pull(task_ids=task_id, map_indexes=index) for task_id, _ in SENSORS)]
            jobs, failed = plan_jobs(fired, str(run_id), bool((params or {}).get("dry_run")))
            ti.xcom_push(key="failed", value=failed)
            return jobs

        planned = plan(tables)
        sensors >> planned
        compact = LakeopsSparkSubmitOperator.partial(pool=SPARK_POOL, task_id="compact", job="compact_table",
                                                     map_index_template=TABLE_LABEL).expand(job_args=planned)
        compact >> report()
    return dag


def table_health_asset(health: HealthConfig) -> Asset:
    """The asset the triggerer's health watch records an event on, polling as the config's health section says."""
    return Asset(name="lakeops_table_health", watchers=[AssetWatcher(
        name="lakeops_table_health_watch",
        trigger=TableHealthWatchTrigger(poke_interval=health.watch_interval_seconds,
                                        min_event_interval=health.watch_min_event_interval_seconds))])


def compact_on_health_dag(health: HealthConfig) -> DAG:
    with DAG(dag_id="compact_on_health", doc_md=WATCH_DOC, schedule=table_health_asset(health), start_date=START_DATE,
             catchup=False,
             max_active_runs=1, tags=["lakeops", "maintenance", "compaction"],
             default_args=default_args(retries=1, retry_delay=timedelta(minutes=2)), deadline=dag_deadline("compaction"),
             params={"tables": tables_param("plan on a manual run"), "dry_run": DRY_RUN}) as dag:

        @task
        def plan(params: dict[str, Any] | None = None, triggering_asset_events: Any = None,
                 run_id: str | None = None, ti: Any = None) -> list[list[str]]:
            """Job arguments of each table the events name (else the `tables` param, else every watched table)."""
            from lakeops.catalog import load_catalog
            from lakeops.compaction.tasks import plan_jobs, tables_from_events
            from lakeops.config import load_config
            from lakeops.tables.selection import select_tables

            params = params or {}
            config = load_config()
            extras = [event.extra for events in (triggering_asset_events or {}).values() for event in events]
            tables = tables_from_events(extras) or select_tables(config, load_catalog(config.catalog), "compaction_watch",
                                                                 params.get("tables") or ())
            jobs, failed = plan_jobs(tables, str(run_id), bool(params.get("dry_run")), config)
            ti.xcom_push(key="failed", value=failed)
            return jobs

        compact = LakeopsSparkSubmitOperator.partial(pool=SPARK_POOL, task_id="compact", job="compact_table",
                                                     map_index_template=TABLE_LABEL).expand(job_args=plan())
        compact >> report()
    return dag
