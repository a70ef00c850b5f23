"""Health gauges reach the deployment's metrics: an evaluation in a process configured the way Airflow is
([metrics] statsd_on, host, port, prefix) sends every gauge of the table through Airflow's Stats facade to a
StatsD listener on loopback, named per table."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest
import yaml

from lakeops.catalog import load_catalog
from lakeops.config import parse_config
from tests.conftest import PROJECT_ROOT, config_data

pytestmark = [pytest.mark.airflow]

EVALUATE = """
import sys
from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.health.sweep import sweep

config = load_config(sys.argv[1])
result = sweep(config, load_catalog(config.catalog), ["lakeops.gauged"])
assert result.evaluated == ["lakeops.gauged"], result
"""


def _received(sock: socket.socket, until: float) -> list[str]:
    lines: list[str] = []
    while time.monotonic() < until:
        try:
            data, _ = sock.recvfrom(65536)
        except TimeoutError:
            continue
        lines += data.decode().splitlines()
        if any(".score." in line for line in lines) and any("zonemap_pruning" in line for line in lines):
            break
    return lines


def test_an_evaluation_sends_the_tables_gauges_to_statsd(tmp_path: Path):
    data = config_data(tmp_path, tables={"lakeops.gauged": {"zonemap": {"columns": ["id"]}}})
    config_path = tmp_path / "lakeops.yaml"
    config_path.write_text(yaml.safe_dump(data))
    config = parse_config(data, tmp_path)
    catalog = load_catalog(config.catalog)
    catalog.create_namespace("lakeops")
    table = catalog.create_table("lakeops.gauged", schema=pa.schema([("id", pa.int64())]))
    for start in (0, 100, 200):
        table.append(pa.table({"id": list(range(start, start + 100))}))

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.settimeout(0.5)
        env = {**os.environ, "AIRFLOW__METRICS__STATSD_ON": "True", "AIRFLOW__METRICS__STATSD_HOST": "127.0.0.1",
               "AIRFLOW__METRICS__STATSD_PORT": str(sock.getsockname()[1]), "AIRFLOW__METRICS__STATSD_PREFIX": "airflow"}
        proc = subprocess.run([sys.executable, "-c", EVALUATE, str(config_path)], env=env, cwd=PROJECT_ROOT,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        lines = _received(sock, time.monotonic() + 10)

    gauges = {line.split(":")[0]: float(line.split(":")[1].split("|")[0]) for line in lines if line.endswith("|g")}
    prefix = "airflow.lakeops.table_health."
    expected = {f"{prefix}{g}.lakeops.gauged" for g in ("score", "data_files", "small_files", "delete_files",
                                                         "read_amplification", "freshness_lag_seconds",
                                                         "zonemap_coverage", "zonemap_pruning")}
    assert expected <= set(gauges), lines
    assert gauges[f"{prefix}data_files.lakeops.gauged"] == 3 and gauges[f"{prefix}delete_files.lakeops.gauged"] == 0
    assert gauges[f"{prefix}read_amplification.lakeops.gauged"] == 1.0
    assert 0 <= gauges[f"{prefix}score.lakeops.gauged"] <= 100
    assert gauges[f"{prefix}zonemap_coverage.lakeops.gauged"] == 0.0  # no zonemap written by these appends
    assert 0 <= gauges[f"{prefix}freshness_lag_seconds.lakeops.gauged"] < 300
