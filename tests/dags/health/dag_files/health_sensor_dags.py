"""Test-only DAGs (loaded by tests/dags/health through a DAGs folder of their own): one health
sensor in a given mode, then a task that writes the sensor's XCom value to params.out."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from airflow.sdk import DAG, Param, task

from lakeops_airflow.sensors import DeleteFileGrowthSensor, ReadAmplificationSensor

SENSORS = {
    "read_amplification": (ReadAmplificationSensor, {"max_files": "{{ params.threshold }}", "max_bytes": "{{ params.max_bytes }}",
                                                     "max_file_amp": "{{ params.max_file_amp }}"}),
    "delete_growth": (DeleteFileGrowthSensor, {"max_per_hour": "{{ params.threshold }}"}),
}
MODES = {"poke": {"mode": "poke"}, "reschedule": {"mode": "reschedule"}, "deferrable": {"deferrable": True}}

for check, (sensor_cls, limits) in SENSORS.items():
    for mode, mode_kwargs in MODES.items():
        with DAG(dag_id=f"test_health_{check}_{mode}", schedule=None, catchup=False, tags=["lakeops"],
                 start_date=datetime(2026, 11, 1, tzinfo=UTC),
                 params={"threshold": Param(1.5, type="number"), "max_bytes": Param(1000.0, type="number"),
                         "max_file_amp": Param(1.5, type="number"), "out": Param("", type="string")}) as dag:
            sensor = sensor_cls(task_id="sensor", table="orders", limits=limits, poke_interval=1, timeout=4,
                                soft_fail=True, **mode_kwargs)

            @task
            def collect(partitions, params=None):
                Path(params["out"]).write_text(json.dumps(partitions))

            collect(sensor.output)
        globals()[dag.dag_id] = dag
