"""Run this project's DAGs through Airflow in-process (dag.test()): the demo and the DAG tests use it.

Needs a migrated Airflow metadata database (AIRFLOW_HOME) and AIRFLOW__CORE__DAGS_FOLDER
pointing at this project's dags/ folder.
"""

from __future__ import annotations

import warnings
from datetime import datetime
from typing import TYPE_CHECKING, Any

from lakeops.exceptions import SetupError

if TYPE_CHECKING:
    from airflow.models.dagrun import DagRun
    from airflow.sdk import DAG


def load_dag(dag_id: str) -> DAG:
    """The DAG from the configured DAGs folder; import errors are raised, not swallowed."""
    from airflow.configuration import conf
    from airflow.dag_processing.dagbag import DagBag

    folder = conf.get("core", "dags_folder")
    bag = DagBag(dag_folder=folder)
    if bag.import_errors:
        raise SetupError(f"DAG files in {folder} fail to import: {bag.import_errors}")
    dag = bag.dags.get(dag_id)
    if dag is None:
        raise SetupError(f"DAG {dag_id!r} is not in {folder}; found {sorted(bag.dags)}. "
                         "Set AIRFLOW__CORE__DAGS_FOLDER to this project's dags/")
    return dag


def run_dag_test(dag: DAG, logical_date: datetime, run_conf: dict[str, Any] | None = None) -> DagRun:
    """One DAG run for the run whose data interval ends at logical_date's tick, through dag.test().

    The run is made without the DAG's deadline alerts. In Airflow 3.3.2, dag.test() builds its
    scheduler-side DAG in memory (serialize + deserialize), so `deadline` holds the encoded alert
    definitions, while DagRun.update_state expects the deadline_alert row ids a DAG read back from
    the metadata DB has; on success it calls DeadlineAlert.get_by_id(<dict>) and fails
    ("'dict' object has no attribute 'hex'"). No scheduler watches a dag.test() run, so its deadline
    could never fire anyway; scheduled runs keep their alerts (the DAG files are untouched).
    """
    saved = dag.deadline
    dag.deadline = None
    try:
        with warnings.catch_warnings():
            # dag.test() runs the task API in process through starlette's TestClient, whose import
            # warns about its httpx dependency: Airflow's own, nothing a lakeops user can act on.
            warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
            return dag.test(logical_date=logical_date, run_conf=run_conf)
    finally:
        dag.deadline = saved
