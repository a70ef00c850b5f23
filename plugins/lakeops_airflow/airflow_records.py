"""What the table page reads from Airflow's own database (the plugin runs in the api-server): the maintenance DAG
runs that worked on a table, with the planner's XCom and the job's result; whether DAGs are paused; the missed
deadlines whose alert names the table.

A run belongs to a table when a work task of it is labelled with the table (the mapped spark-submit's
rendered map index is the table's name) or when the run's conf names the table (a run started from the page
whose planner found nothing to do has no work task). The job's result is the XCom the Spark operator pushes
from the job's LAKEOPS_RESULT line; a compaction's plan is the `plan` task's XCom (one job-argument list per
table, `--plan` holding the plan as JSON).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from lakeops.exceptions import LakeopsError
from lakeops.ui.runs import RawRun

log = logging.getLogger(__name__)
WORK_TASKS = {"compact_on_health": "compact", "compact_tables": "compact", "expire_snapshots": "expire",
              "zonemap_daily": "consolidate_day", "zonemap_hourly": "consolidate_hour"}
RUNS_SHOWN = 20
MANUAL_RUNS_SCANNED = 300
MISSED_DEADLINES_SHOWN = 10


def _ms(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


def plan_of(job_args: Any, table: str) -> dict[str, Any] | None:
    """The plan in the `plan` task's XCom (a list of compact_table.py argument lists) for `table`."""
    for args in job_args if isinstance(job_args, list) else []:
        if isinstance(args, list) and len(args) > 3 and args[:2] == ["--table", table] and "--plan" in args:
            try:
                plan = json.loads(args[args.index("--plan") + 1])
            except (ValueError, IndexError):
                return None
            return plan if isinstance(plan, dict) else None
    return None


def maintenance_runs(table: str, dag_ids: list[str]) -> list[RawRun]:
    """The newest runs of `dag_ids` that worked on `table`, newest first."""
    from airflow.models import DagRun
    from airflow.models.taskinstance import TaskInstance
    from airflow.models.xcom import XComModel
    from airflow.utils.session import create_session
    from sqlalchemy import and_, or_, select

    dag_ids = [d for d in dag_ids if d in WORK_TASKS]
    if not dag_ids:
        return []
    with create_session() as session:
        work = {(d, r): (t, m, s) for d, r, t, m, s in session.execute(
            select(TaskInstance.dag_id, TaskInstance.run_id, TaskInstance.task_id, TaskInstance.map_index,
                   TaskInstance.state)
            .where(TaskInstance.dag_id.in_(dag_ids), TaskInstance.task_id.in_(set(WORK_TASKS.values())),
                   TaskInstance._rendered_map_index == table)
            .order_by(TaskInstance.start_date.desc()).limit(RUNS_SHOWN * 3))}
        runs = {}
        if work:
            keys = [and_(DagRun.dag_id == d, DagRun.run_id == r) for d, r in work]
            runs = {(run.dag_id, run.run_id): run for run in session.scalars(select(DagRun).where(or_(*keys)))}
        for run in session.scalars(select(DagRun).where(DagRun.dag_id.in_(dag_ids), DagRun.run_type == "manual")
                                   .order_by(DagRun.id.desc()).limit(MANUAL_RUNS_SCANNED)):
            if table in ((run.conf or {}).get("tables") or []):
                runs.setdefault((run.dag_id, run.run_id), run)
        chosen = sorted(runs.values(), key=lambda r: r.id, reverse=True)[:RUNS_SHOWN]
        xcoms: dict[tuple[int, str, int], Any] = {}
        if chosen:
            for x in session.scalars(select(XComModel).where(
                    XComModel.dag_run_id.in_([r.id for r in chosen]), XComModel.key == "return_value",
                    XComModel.task_id.in_({*WORK_TASKS.values(), "plan"}))):
                xcoms[(x.dag_run_id, x.task_id, x.map_index)] = XComModel.deserialize_value(x)
        out = []
        for run in chosen:
            task, map_index, task_state = work.get((run.dag_id, run.run_id), (None, None, None))
            result = xcoms.get((run.id, task, map_index)) if task is not None and map_index is not None else None
            out.append(RawRun(
                dag_id=run.dag_id, run_id=run.run_id, run_type=str(run.run_type), state=str(run.state),
                queued_ms=_ms(run.queued_at), start_ms=_ms(run.start_date), end_ms=_ms(run.end_date),
                conf=dict(run.conf or {}), task_state=None if task_state is None else str(task_state),
                result=result if isinstance(result, dict) else None,
                plan=plan_of(xcoms.get((run.id, "plan", -1)), table)))
    return out


def paused(dag_ids: list[str]) -> dict[str, bool]:
    """dag id -> whether it is paused, for the DAGs Airflow knows."""
    from airflow.models import DagModel
    from airflow.utils.session import create_session
    from sqlalchemy import select

    with create_session() as session:
        return {d: bool(p) for d, p in session.execute(select(DagModel.dag_id, DagModel.is_paused)
                                                        .where(DagModel.dag_id.in_(dag_ids)))}


def missed_deadlines(table: str, identifier: Callable[[str], str]) -> list[dict[str, Any]]:
    """Missed DAG-run deadlines whose lakeops alert names this table, newest first.

    `identifier` resolves a name as a DAG wrote it (a bare name in the default namespace, or namespace.table)
    to the table's identifier, so "events" in a deadline matches the page of lakeops.events."""
    from airflow.models import DagRun
    from airflow.models.deadline import Deadline
    from airflow.utils.session import create_session
    from sqlalchemy import select

    out = []
    with create_session() as session:
        rows = session.execute(
            select(Deadline, DagRun).join(DagRun, Deadline.dagrun_id == DagRun.id)
            .where(Deadline.missed).order_by(Deadline.deadline_time.desc()).limit(500))
        for deadline, run in rows:
            kwargs = ((deadline.callback.data or {}) if deadline.callback else {}).get("kwargs") or {}
            if any(_same_table(n, table, identifier) for n in tables_named(kwargs, run.conf or {})):
                out.append({"dag_id": run.dag_id, "run_id": run.run_id,
                            "deadline": deadline.deadline_time.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")})
            if len(out) >= MISSED_DEADLINES_SHOWN:
                break
    return out


def tables_named(alert_kwargs: dict[str, Any], run_conf: dict[str, Any]) -> list[str]:
    """The table names a missed deadline concerns: the alert's `table`, the run's `table` param (ingest,
    ETL) and each name in the run's `tables` param (a maintenance run narrowed to some tables)."""
    listed = run_conf.get("tables")
    names = [alert_kwargs.get("table"), run_conf.get("table"), *(listed if isinstance(listed, list) else [])]
    return [n for n in names if isinstance(n, str)]


def _same_table(name: str, table: str, identifier: Callable[[str], str]) -> bool:
    try:
        return identifier(name) == table
    except LakeopsError:  # a name that is no identifier names no table here
        return False
