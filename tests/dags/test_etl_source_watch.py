"""A model's DAG runs when its sources commit: a source lakeops ingests through the asset its ingest tasks emit, a
source another tool writes through an asset watcher whose trigger polls the table's snapshot in the triggerer
(lakeops_airflow.triggers.TableCommitWatchTrigger). The trigger runs here on a real SQL catalog that pyiceberg
writes to, as another tool would."""

from __future__ import annotations

import asyncio
import importlib
import json
from datetime import UTC, datetime

import pyarrow as pa
import pytest
import yaml

from lakeops.catalog import load_catalog
from lakeops.config import parse_config
from tests.conftest import config_data

pytestmark = [pytest.mark.airflow]

SQL = "SELECT id, user_id, amount FROM flink_orders\n"


def _config(tmp_path, schedule=None):
    (tmp_path / "copy.sql").write_text(SQL)
    tables = {"lakeops.events": {"source": "events"}, "lakeops.orders_copy": {}, "lakeops.amount_by_user": {},
              "lakeops.streamed": {"source": "streamed", "ingest": {"mode": "streaming"},
                                   "streaming": {"runner": "supervised"}}}
    model = {"sql": "copy.sql", "table": "lakeops.orders_copy", "key": ["id"], "partition_column": "created_at",
             "sources": {"flink_orders": {"kind": "changelog", "table": "lakeops.flink_orders"},
                         "events": {"kind": "append"}, "streamed": {"kind": "append"}}}
    if schedule:
        model["schedule"] = schedule
    # A model over the first one's table: lakeops' own ETL writes that table.
    (tmp_path / "by_user.sql").write_text("SELECT user_id, sum(amount) AS amount FROM orders_copy GROUP BY user_id\n")
    chained = {"sql": "by_user.sql", "table": "lakeops.amount_by_user", "key": ["user_id"], "partition_column": "user_id",
               "sources": {"orders_copy": {"kind": "changelog"}}}
    data = config_data(tmp_path, tables=tables, models={"orders_copy": model, "amount_by_user": chained})
    data["health"] = {"watch_interval_seconds": 30, "watch_min_event_interval_seconds": 30}
    return data, parse_config(data, tmp_path)


def _watchers(dag) -> dict[str, list]:
    return {asset.name: list(asset.watchers) for asset in dag.timetable.asset_condition.objects}


def test_sources_another_tool_writes_are_watched_and_ingested_ones_are_not(tmp_path):
    from lakeops_airflow.dags.etl import etl_model_dag
    from lakeops_airflow.triggers import TableCommitWatchTrigger

    _, config = _config(tmp_path)
    watchers = _watchers(etl_model_dag(config, config.model("orders_copy")))
    assert set(watchers) == {"lakeops.table.lakeops.flink_orders", "lakeops.table.lakeops.events",
                             "lakeops.table.lakeops.streamed"}
    assert watchers["lakeops.table.lakeops.events"] == []  # its ingest tasks emit the asset
    for name in ("flink_orders", "streamed"):  # written by another tool; a supervised stream emits nothing for an hour
        (watcher,) = watchers[f"lakeops.table.lakeops.{name}"]
        assert isinstance(watcher.trigger, TableCommitWatchTrigger)
        assert (watcher.trigger.table, watcher.trigger.poke_interval) == (f"lakeops.{name}", 30.0)


def test_a_model_over_another_models_table_runs_when_that_models_task_commits(tmp_path):
    from lakeops_airflow.dags.etl import etl_model_dag

    _, config = _config(tmp_path)
    upstream = etl_model_dag(config, config.model("orders_copy"))
    assert [a.name for a in upstream.get_task("etl").outlets] == ["lakeops.table.lakeops.orders_copy"]
    assert _watchers(etl_model_dag(config, config.model("amount_by_user"))) == {"lakeops.table.lakeops.orders_copy": []}


def test_a_model_on_a_schedule_watches_nothing(tmp_path):
    from lakeops_airflow.dags.etl import etl_model_dag

    _, config = _config(tmp_path, schedule="0 * * * *")
    timetable = etl_model_dag(config, config.model("orders_copy")).timetable
    assert type(timetable).__name__ == "CronDataIntervalTimetable" and timetable.expression == "0 * * * *"


async def _event_after_a_commit(trigger, commit, seconds: float):
    """The trigger's first event when `commit` runs once its first poll has seen the table."""
    events = trigger.run()
    first = asyncio.ensure_future(events.__anext__())
    try:
        await asyncio.sleep(1.0)
        assert not first.done(), "an event before any commit"
        await asyncio.to_thread(commit)
        return await asyncio.wait_for(first, seconds)
    finally:
        first.cancel()
        await events.aclose()


def test_the_trigger_serializes_and_yields_an_event_when_another_writer_commits(tmp_path):
    from lakeops_airflow.triggers import TableCommitWatchTrigger

    data, config = _config(tmp_path)
    path = tmp_path / "lakeops.yaml"
    path.write_text(yaml.safe_dump(data))
    catalog = load_catalog(config.catalog)
    catalog.create_namespace_if_not_exists("lakeops")
    table = catalog.create_table("lakeops.flink_orders", pa.schema([("id", pa.int64())]))

    classpath, kwargs = TableCommitWatchTrigger("lakeops.flink_orders", 0.2, str(path)).serialize()
    module, name = classpath.rsplit(".", 1)  # what the triggerer does with the serialized form
    trigger = getattr(importlib.import_module(module), name)(**json.loads(json.dumps(kwargs)))
    assert trigger.serialize() == (classpath, kwargs)

    event = asyncio.run(_event_after_a_commit(trigger, lambda: table.append(pa.table({"id": [1]})), 30))
    assert event.payload == {"table": "lakeops.flink_orders", "snapshot_id": table.refresh().metadata.current_snapshot_id,
                             "previous_snapshot_id": None}
    with pytest.raises(ValueError, match="poke_interval=0 must be a positive number"):
        TableCommitWatchTrigger("lakeops.flink_orders", 0)


def test_the_job_arguments_render_for_a_run_without_a_data_interval(tmp_path):
    """An asset-triggered run (or one triggered without a logical date) has no data_interval_* in its context, and
    Airflow renders with StrictUndefined: the arguments must not name the key before testing it."""
    from types import SimpleNamespace

    from lakeops_airflow.dags.etl import etl_model_dag
    from lakeops_airflow.dags.ingest import END, START

    _, config = _config(tmp_path)
    dag = etl_model_dag(config, config.model("orders_copy"))
    env = dag.get_template_env()
    context = {"params": {"from_date": None, "to_date": None, "full_recompute": False, "start": None, "end": None},
               "dag_run": SimpleNamespace(run_type=SimpleNamespace(value="asset_triggered"))}
    args = [env.from_string(arg).render(**context) for arg in dag.get_task("etl").job_args]
    assert args[args.index("--interval-start") + 1] == "" and args[args.index("--run-type") + 1] == "asset_triggered"
    assert [env.from_string(t).render(**context) for t in (START, END)] == ["", ""]
    interval = {"data_interval_start": datetime(2026, 11, 20, tzinfo=UTC),
                "data_interval_end": datetime(2026, 11, 21, tzinfo=UTC)}
    args = [env.from_string(arg).render(**context, **interval) for arg in dag.get_task("etl").job_args]
    assert args[args.index("--interval-start") + 1] == "2026-11-20T00:00:00+00:00"
    assert env.from_string(END).render(**context, **interval) == "2026-11-21T00:00:00+00:00"
