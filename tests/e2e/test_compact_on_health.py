"""compact_on_health in a whole Airflow 3 (scheduler, dag-processor, triggerer, api-server as
processes): once the DAG is unpaused, its asset watcher runs in the triggerer, finds the CDC
table's delete files over threshold from metadata, records an asset event, and the scheduler
starts a run that plans and spark-submits the compaction. Afterwards the healthy table starts no
further run."""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

import pytest
import yaml

from lakeops.config import parse_config
from lakeops.health.compute import table_health
from tests.conftest import config_data, register_catalog
from tests.e2e.airflow_services import PROJECT_ROOT, start_airflow
from tests.integration.compaction.conftest import keys, land_and_merge

pytestmark = [pytest.mark.airflow, pytest.mark.e2e, pytest.mark.spark]

DAG_ID = "compact_on_health"
WATCH_INTERVAL_S = 10  # health.watch_interval_seconds: the watcher polls every 10 s instead of the default minute


def test_the_watcher_starts_a_compaction_run_and_then_stays_quiet(spark, tmp_path):
    data = config_data(tmp_path)
    data["health"] = {**data.get("health", {}), "watch_interval_seconds": WATCH_INTERVAL_S}
    config_path = tmp_path / "lakeops.yaml"
    config_path.write_text(yaml.safe_dump(data))
    config = parse_config(data, tmp_path)
    register_catalog(spark, config)
    land_and_merge(spark, config, "orders", 5, per_minute=40, seed=47)
    rows_before = keys(spark, config, "orders")
    before = table_health(config, "orders")
    assert before.applied_delete_files > 0

    home = Path(tempfile.mkdtemp(prefix="lakeops-airflow-watch-"))
    dags = home / "dags"
    dags.mkdir()
    (dags / "lakeops_dags.py").symlink_to(PROJECT_ROOT / "dags" / "lakeops_dags.py")  # renders every lakeops DAG
    services = start_airflow(home / "home", dags, {
        "LAKEOPS_CONFIG": str(config_path), "LAKEOPS_DATA_DIR": str(tmp_path / "data"),
        "AIRFLOW_CONN_LAKEOPS_SPARK": json.dumps({"conn_type": "spark", "host": "local[2]"})})
    try:
        services.wait_for(lambda: _dag_exists(services), 180, f"the dag-processor to load {DAG_ID}")
        assert _runs(services) == []  # paused: no watcher, no run
        services.api("PATCH", f"/api/v2/dags/{DAG_ID}", {"is_paused": False})

        ended = services.wait_for(lambda: [r for r in _runs(services) if r["state"] in ("success", "failed")],
                                  600, "the watcher's event to start a run and the run to end", 2.0)
        run = ended[0]
        tasks = services.api("GET", f"/api/v2/dags/{DAG_ID}/dagRuns/{run['dag_run_id']}/taskInstances")["task_instances"]
        assert run["run_type"] == "asset_triggered" and run["state"] == "success", (run, tasks, services.logs_tail())
        assert sorted((t["task_id"], t["map_index"], t["state"]) for t in tasks) == [("compact", 0, "success"),
                                                                                      ("plan", -1, "success"),
                                                                                      ("report", -1, "success")]
        events = services.api("GET", "/api/v2/assets/events?limit=10")["asset_events"]
        assert [e["extra"]["payload"]["table"] for e in events] == ["lakeops.orders"]

        after = table_health(config, "orders")
        print(f"compact_on_health from the watcher: applied delete files {before.applied_delete_files} -> "
              f"{after.applied_delete_files}, read amplification {before.read_amp_files:.2f} -> {after.read_amp_files:.2f}")
        assert after.applied_delete_files < before.applied_delete_files
        spark.catalog.refreshTable(config.qualified("orders"))
        assert keys(spark, config, "orders") == rows_before

        # The watcher's next poll evaluates the compacted snapshot: nothing over threshold, no run.
        time.sleep(WATCH_INTERVAL_S + 10)
        assert len(_runs(services)) == 1
    finally:
        services.stop()
        shutil.rmtree(home, ignore_errors=True)


def _dag_exists(services) -> bool:
    try:
        services.api("GET", f"/api/v2/dags/{DAG_ID}")
        return True
    except Exception:  # noqa: BLE001 - 404 until the dag-processor has serialized it
        return False


def _runs(services) -> list[dict]:
    return services.api("GET", f"/api/v2/dags/{DAG_ID}/dagRuns?limit=100")["dag_runs"]
