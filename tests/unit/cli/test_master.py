"""Which Spark master the command line's jobs run on, and their environment: pure, on literals."""

from __future__ import annotations

import pytest

from lakeops.cli.master import job_environment, master_from_connection, resolve_master
from lakeops.cli.values import CliError

CONN = "AIRFLOW_CONN_LAKEOPS_SPARK"


@pytest.mark.parametrize(("value", "master"), [
    ('{"conn_type": "spark", "host": "local[*]"}', "local[*]"),
    ('{"conn_type": "spark", "host": "spark://spark-master", "port": 7077}', "spark://spark-master:7077"),
    ('{"conn_type": "spark", "host": "k8s://https://k8s.example:6443"}', "k8s://https://k8s.example:6443"),
    ('{"conn_type": "spark", "host": "yarn"}', "yarn"),
    ("spark://spark-master:7077", "spark://spark-master:7077"),
    ("spark://local%5B4%5D", "local[4]"),
    ('{"conn_type": "spark"}', None),
])
def test_a_connection_gives_the_master_airflow_would_use(value, master):
    assert master_from_connection(value, CONN) == master


def test_a_connection_that_is_neither_json_nor_a_uri_is_refused():
    with pytest.raises(CliError, match="AIRFLOW_CONN_LAKEOPS_SPARK is not a connection in JSON or URI form"):
        master_from_connection('{"conn_type": "spark", host: local}', CONN)


def test_the_option_wins_then_the_variable_then_the_connection_then_local():
    env = {"LAKEOPS_SPARK_MASTER": "local[8]", CONN: '{"conn_type": "spark", "host": "local[*]"}'}
    assert resolve_master("spark://m:7077", env, "lakeops_spark") == ("spark://m:7077", "--master")
    assert resolve_master(None, env, "lakeops_spark") == ("local[8]", "$LAKEOPS_SPARK_MASTER")
    assert resolve_master(None, {CONN: env[CONN]}, "lakeops_spark") == ("local[*]", "connection lakeops_spark "
                                                                                    "($AIRFLOW_CONN_LAKEOPS_SPARK)")
    assert resolve_master(None, {CONN: env[CONN]}, "other_spark") == ("local[2]", "default")
    assert resolve_master(None, {}, "lakeops_spark") == ("local[2]", "default")


def test_a_job_runs_on_this_python_with_the_config_named():
    env = job_environment({"PATH": "/usr/bin", "HOME": "/root"}, "/opt/venv/bin/python", "/etc/lakeops.yaml")
    assert env == {"PATH": "/usr/bin:/opt/venv/bin", "HOME": "/root", "LAKEOPS_CONFIG": "/etc/lakeops.yaml",
                   "PYSPARK_PYTHON": "/opt/venv/bin/python"}
    kept = job_environment({"PATH": "/opt/venv/bin:/usr/bin", "PYSPARK_PYTHON": "/usr/bin/python3"},
                           "/opt/venv/bin/python", "/c.yaml")
    assert (kept["PATH"], kept["PYSPARK_PYTHON"]) == ("/opt/venv/bin:/usr/bin", "/usr/bin/python3")
