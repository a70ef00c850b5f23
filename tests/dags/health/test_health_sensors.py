"""Health sensors in real Airflow runs (dag.test()) on tables with real delete files written by
Spark MERGE INTO in merge-on-read mode: they fire when a partition crosses a threshold (its list
reaches the next task through XCom) and stay quiet below it, in poke, reschedule and deferrable
mode. The trigger is also run directly (its async run()) for its success, quiet and error paths."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from lakeops.catalog import load_catalog
from lakeops.health.history import open_history
from lakeops.ingest.ddl import create_table_sql
from tests.conftest import PROJECT_ROOT, make_test_config, register_catalog

pytestmark = [pytest.mark.airflow, pytest.mark.spark]

DAY1, DAY2 = "2026-11-20", "2026-11-21"
MOR = {"write.merge.mode": "merge-on-read", "write.update.mode": "merge-on-read", "write.delete.mode": "merge-on-read"}


def _orders_catalog(spark, base: Path, merged: bool, inserts: int = 2):
    """A catalog with an orders table over two days (`inserts` inserts, a file per day each); with
    merged=True a MERGE then updates every order of the first day, leaving delete files on all its
    data files."""
    config = make_test_config(base)
    register_catalog(spark, config)
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {config.catalog.name}.{config.catalog.namespace}")
    name = config.qualified("orders")
    spark.sql(create_table_sql(config, config.table("orders")))
    props = ", ".join(f"'{k}'='{v}'" for k, v in MOR.items())
    spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ({props})")
    for batch in range(inserts):
        spark.sql(f"""INSERT INTO {name} SELECT id, id % 7, 'created', CAST(id AS DECIMAL(12, 2)), 'USD',
            CAST(IF(id % 2 = 0, '{DAY1} 10:00:00', '{DAY2} 10:00:00') AS TIMESTAMP), current_timestamp()
            FROM range({batch * 100}, {batch * 100 + 100}) ORDER BY id""")
    if merged:
        spark.sql(f"""MERGE INTO {name} t USING (SELECT id FROM range(0, 200) WHERE id % 2 = 0) s
            ON t.order_id = s.id WHEN MATCHED THEN UPDATE SET status = 'paid'""")
    path = base / "lakeops.yaml"
    raw = {"catalog": {"name": config.catalog.name, "namespace": "lakeops", "data_dir": config.catalog.data_dir},
           "tables": yaml.safe_load((PROJECT_ROOT / "include" / "lakeops.yaml").read_text())["tables"]}
    path.write_text(yaml.safe_dump(raw))
    return config, path


@pytest.fixture(scope="module")
def quiet(spark, tmp_path_factory):
    return _orders_catalog(spark, tmp_path_factory.mktemp("quiet"), merged=False)


@pytest.fixture(scope="module")
def fired(spark, tmp_path_factory):
    return _orders_catalog(spark, tmp_path_factory.mktemp("fired"), merged=True)


@pytest.fixture(scope="module")
def fragmented(spark, tmp_path_factory):
    """Eight small inserts: 16 data files where a compacted copy holds 2 (8x, 14 files to save)."""
    return _orders_catalog(spark, tmp_path_factory.mktemp("fragmented"), merged=False, inserts=8)


DAG_FILES = Path(__file__).resolve().parent / "dag_files"


def _run(monkeypatch, config_path: Path, check: str, mode: str, out: Path, **params) -> dict[str, str]:
    """dag.test() of one test DAG (their own DAGs folder); the sensor reads config_path."""
    import airflow.settings

    from lakeops.dag_runs import run_dag_test

    monkeypatch.setenv("LAKEOPS_CONFIG", str(config_path))
    monkeypatch.setattr(airflow.settings, "DAGS_FOLDER", str(DAG_FILES))
    from airflow.dag_processing.dagbag import DagBag

    bag = DagBag(dag_folder=str(DAG_FILES))
    assert not bag.import_errors, bag.import_errors
    dag = bag.dags[f"test_health_{check}_{mode}"]
    run = run_dag_test(dag, datetime(2026, 11, 21, 12, 0, tzinfo=UTC), {"out": str(out), **params})
    return {ti.task_id: str(ti.state) for ti in run.get_task_instances()}


@pytest.mark.parametrize("mode", ["poke", "reschedule", "deferrable"])
def test_read_amplification_sensor_fires_on_the_merged_partition(airflow_db, fired, monkeypatch, tmp_path, mode):
    config, config_path = fired
    out = tmp_path / "partitions.json"
    states = _run(monkeypatch, config_path, "read_amplification", mode, out)
    assert states == {"sensor": "success", "collect": "success"}
    found = json.loads(out.read_text())
    assert [b["partition"] for b in found] == [f"created_at_day={DAY1}"]
    assert found[0]["metric"] == "read_amp_files" and found[0]["value"] >= found[0]["threshold"] == 1.5
    points = open_history(config).read("lakeops.orders")
    assert points and points[-1].delete_files > 0


# Not deferrable here: dag.test() runs a trigger until its first event, with no deferral timeout,
# so a quiet trigger would wait forever; test_trigger_serializes_and_yields_one_event covers it.
@pytest.mark.parametrize("mode", ["poke", "reschedule"])
def test_sensors_stay_quiet_below_threshold(airflow_db, quiet, fired, monkeypatch, tmp_path, mode):
    out = tmp_path / "partitions.json"
    before = len(open_history(quiet[0]).read("lakeops.orders"))
    # The clean table: read amplification 1.0 everywhere; the sensor times out (soft_fail: skipped).
    states = _run(monkeypatch, quiet[1], "read_amplification", mode, out)
    assert states["sensor"] == "skipped" and not out.exists()
    assert len(open_history(quiet[0]).read("lakeops.orders")) >= before + 2  # every check was recorded
    # The merged table under a growth threshold above what the MERGE added.
    added = _delete_files(fired[0])
    states = _run(monkeypatch, fired[1], "delete_growth", mode, out, threshold=added + 1)
    assert states["sensor"] == "skipped" and not out.exists()


def test_read_amplification_sensor_fires_on_the_whole_table_file_amplification(airflow_db, fragmented, quiet,
                                                                             monkeypatch, tmp_path):
    out = tmp_path / "partitions.json"
    # No delete file anywhere: only the table-wide layout can fire (partition limits set out of reach).
    states = _run(monkeypatch, fragmented[1], "read_amplification", "poke", out, threshold=1000)
    assert states == {"sensor": "success", "collect": "success"}
    assert json.loads(out.read_text()) == [{"partition": "", "spec_id": None, "partition_values": [],
                                            "metric": "file_amplification", "value": 8.0, "threshold": 1.5}]
    out.unlink()
    states = _run(monkeypatch, fragmented[1], "read_amplification", "poke", out, threshold=1000, max_file_amp=8.5)
    assert states["sensor"] == "skipped" and not out.exists()
    # Two files per partition (2x) but only 2 to save, under Amoro's 12: quiet at the shipped 1.5.
    states = _run(monkeypatch, quiet[1], "read_amplification", "poke", out, threshold=1000)
    assert states["sensor"] == "skipped" and not out.exists()


def _delete_files(config) -> int:
    return len(load_catalog(config.catalog).load_table(config.identifier("orders")).inspect.delete_files())


def test_delete_growth_sensor_fires_at_its_threshold(airflow_db, fired, monkeypatch, tmp_path):
    added = _delete_files(fired[0])
    out = tmp_path / "partitions.json"
    states = _run(monkeypatch, fired[1], "delete_growth", "poke", out, threshold=added)
    assert states["sensor"] == "success"
    assert [(b["partition"], b["value"]) for b in json.loads(out.read_text())] == [(f"created_at_day={DAY1}", added)]


async def _first_event(trigger, seconds: float):
    agen = trigger.run()
    try:
        return await asyncio.wait_for(agen.__anext__(), seconds)
    except TimeoutError:
        return None
    finally:
        await agen.aclose()


def test_trigger_serializes_and_yields_one_event(fired, quiet):
    import importlib

    from lakeops_airflow.triggers import TableHealthTrigger

    trigger = TableHealthTrigger("orders", "read_amplification", {"max_files": 1.5}, 0.2, True, str(fired[1]))
    classpath, kwargs = trigger.serialize()
    module, name = classpath.rsplit(".", 1)  # what the triggerer does with the serialized form
    rebuilt = getattr(importlib.import_module(module), name)(**json.loads(json.dumps(kwargs)))
    assert rebuilt.serialize() == (classpath, kwargs)

    event = asyncio.run(_first_event(rebuilt, 30))
    assert event.payload["status"] == "success"
    assert [b["partition"] for b in event.payload["partitions"]] == [f"created_at_day={DAY1}"]

    silent = TableHealthTrigger("orders", "read_amplification", {"max_files": 1.5}, 0.2, False, str(quiet[1]))
    assert asyncio.run(_first_event(silent, 2)) is None

    broken = TableHealthTrigger("orders", "read_amplification", {"max_per_hour": 1}, 0.2, False, str(quiet[1]))
    error = asyncio.run(_first_event(broken, 30))
    assert error.payload["status"] == "error" and "max_per_hour" in error.payload["message"]


def test_error_event_fails_the_task():
    from lakeops.exceptions import LakeopsError
    from lakeops_airflow.sensors import ReadAmplificationSensor

    sensor = ReadAmplificationSensor(task_id="s", table="orders", deferrable=True)
    with pytest.raises(LakeopsError, match="failed in the triggerer: NoSuchTableError: nope"):
        sensor.execute_complete({}, {"status": "error", "message": "NoSuchTableError: nope"})
    assert sensor.execute_complete({}, {"status": "success", "partitions": [{"partition": "p"}]}) == [{"partition": "p"}]


def test_health_watch_reports_a_table_over_threshold_and_evaluates_only_new_snapshots(fired):
    from lakeops.config import load_config
    from lakeops.health.watch import HealthWatch

    config = load_config(fired[1])
    snapshot = load_catalog(config.catalog).load_table(config.identifier("orders")).metadata.current_snapshot_id
    # The config lists events and users too; they were never created, so there is nothing to watch.
    watch = HealthWatch(None, min_event_interval_s=600, config_path=str(fired[1]), record=False)
    first = watch.poll(now_s=1000.0)
    assert [(e["table"], e["snapshot_id"]) for e in first] == [("lakeops.orders", snapshot)]
    assert first[0]["checks"]["read_amplification"] == [f"created_at_day={DAY1}"]
    assert watch.poll(now_s=1300.0) == []  # within the interval
    assert len(watch.poll(now_s=1600.0)) == 1  # still over after it: reported again
    assert (watch.polls, watch.evaluations) == (3, 1)  # one snapshot, one evaluation


def test_health_watch_stays_quiet_below_threshold_and_fires_on_the_crossing(spark, tmp_path):
    from lakeops.health.watch import HealthWatch

    config, path = _orders_catalog(spark, tmp_path, merged=False)
    watch = HealthWatch(["orders"], min_event_interval_s=600, config_path=str(path))
    assert watch.poll(now_s=1000.0) == [] and watch.poll(now_s=2000.0) == []
    assert watch.evaluations == 1
    spark.sql(f"""MERGE INTO {config.qualified('orders')} t USING (SELECT id FROM range(0, 200) WHERE id % 2 = 0) s
        ON t.order_id = s.id WHEN MATCHED THEN UPDATE SET status = 'paid'""")
    crossed = watch.poll(now_s=2060.0)
    assert [e["table"] for e in crossed] == ["lakeops.orders"] and watch.evaluations == 2
    assert f"created_at_day={DAY1}" in crossed[0]["checks"]["read_amplification"]
    assert len(open_history(config).read("lakeops.orders")) == 2  # each evaluation recorded, not each poll


def test_watch_trigger_serializes_yields_events_and_outlives_a_bad_poll(fired, quiet):
    import importlib

    from lakeops_airflow.triggers import TableHealthWatchTrigger

    trigger = TableHealthWatchTrigger(["orders"], 0.2, 600, str(fired[1]))
    classpath, kwargs = trigger.serialize()
    module, name = classpath.rsplit(".", 1)
    rebuilt = getattr(importlib.import_module(module), name)(**json.loads(json.dumps(kwargs)))
    assert rebuilt.serialize() == (classpath, kwargs)
    event = asyncio.run(_first_event(rebuilt, 30))
    assert event.payload["table"] == "lakeops.orders"
    assert event.payload["checks"]["read_amplification"] == [f"created_at_day={DAY1}"]

    assert asyncio.run(_first_event(TableHealthWatchTrigger(["orders"], 0.2, 600, str(quiet[1])), 2)) is None
    # A table the config does not have fails every poll; the watcher logs it and keeps polling.
    assert asyncio.run(_first_event(TableHealthWatchTrigger(["ordres"], 0.2, 600, str(quiet[1])), 2)) is None
    with pytest.raises(ValueError, match="poke_interval=0 must be a positive number"):
        TableHealthWatchTrigger(["orders"], 0)


def test_health_watch_skips_a_table_it_cannot_read_and_still_watches_the_others(spark, tmp_path):
    from lakeops.health.watch import HealthWatch

    config, path = _orders_catalog(spark, tmp_path, merged=True)
    spark.sql(create_table_sql(config, config.table("users")))
    users = load_catalog(config.catalog).load_table(config.identifier("users"))
    Path(users.metadata_location.removeprefix("file:")).unlink()  # its metadata file is gone

    watch = HealthWatch(["users", "orders"], config_path=str(path), record=False)
    events = watch.poll(now_s=1000.0)
    assert [e["table"] for e in events] == ["lakeops.orders"]
    assert list(watch.failed) == ["lakeops.users"]
    print(f"health watch, unreadable table: {watch.failed}")
    assert "metadata.json" in watch.failed["lakeops.users"]


def test_health_watch_sends_no_event_when_a_check_fires_but_the_plan_has_nothing_to_rewrite(spark, tmp_path):
    from lakeops.health.check import run_check
    from lakeops.health.watch import HealthWatch

    config, path = _orders_catalog(spark, tmp_path, merged=False, inserts=1)
    spark.sql(f"""MERGE INTO {config.qualified('orders')} t USING (SELECT 0 AS id) s
        ON t.order_id = s.id WHEN MATCHED THEN UPDATE SET status = 'paid'""")
    # One order of 50 updated: its day holds 2 data files and a delete file applying to one of
    # them, 1.5 files per data file, at the sensor's limit; 2% deleted rows, nothing the planner rewrites.
    assert [b["partition"] for b in run_check("orders", "read_amplification", record=False, config_path=str(path))] == [
        f"created_at_day={DAY1}"]
    watch = HealthWatch(["orders"], config_path=str(path), record=False)
    assert watch.poll(now_s=1000.0) == [] and watch.evaluations == 1
