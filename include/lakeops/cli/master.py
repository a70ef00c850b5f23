"""Where the command line's Spark jobs run and with which programs: the Spark master, the spark-submit
executable and the driver's Python. Pure: the environment is passed in.

The master, first found wins: `--master`; $LAKEOPS_SPARK_MASTER; the config's Spark connection
(spark.conn_id) when it is defined in the environment as AIRFLOW_CONN_<ID> (JSON or URI form, read the
way Airflow's Spark provider reads it; connections kept in Airflow's database are not read, so the
command line never needs Airflow); else local[2].
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import unquote, urlsplit

from lakeops.cli.values import CliError

MASTER_ENV = "LAKEOPS_SPARK_MASTER"
DEFAULT_MASTER = "local[2]"


def connection_env(conn_id: str) -> str:
    """The environment variable Airflow reads a connection from: AIRFLOW_CONN_<CONN_ID>."""
    return "AIRFLOW_CONN_" + conn_id.upper()


def master_from_connection(value: str, name: str) -> str | None:
    """The master Airflow's SparkSubmitHook builds from a connection given in JSON or URI form: the host
    (a full master URL such as local[*] or k8s://https://h), else <conn_type>://<host>, then :<port>."""
    try:
        if value.lstrip().startswith("{"):
            data = json.loads(value)
            conn_type, host, port = str(data.get("conn_type") or ""), str(data.get("host") or ""), data.get("port")
        else:
            parts = urlsplit(value)
            conn_type, host, port = parts.scheme.replace("-", "_"), unquote(parts.hostname or ""), parts.port
    except ValueError as e:
        raise CliError(f"{name} is not a connection in JSON or URI form ({e}); set it like "
                       '\'{"conn_type": "spark", "host": "local[*]"}\', or pass --master') from e
    if not host:
        return None
    master = host if conn_type == "spark" and ("://" in host or not port) else f"{conn_type}://{host}"
    return f"{master}:{port}" if port else master


def resolve_master(option: str | None, env: Mapping[str, str], conn_id: str) -> tuple[str, str]:
    """(master, where it came from)."""
    if option:
        return option, "--master"
    if env.get(MASTER_ENV):
        return env[MASTER_ENV], f"${MASTER_ENV}"
    name = connection_env(conn_id)
    if env.get(name):
        master = master_from_connection(env[name], name)
        if master:
            return master, f"connection {conn_id} (${name})"
    return DEFAULT_MASTER, "default"


def job_environment(env: Mapping[str, str], python: str, config_path: str) -> dict[str, str]:
    """The environment of a spark-submit child: the config file named, the driver and executors on this
    Python (the one lakeops is installed in) unless PYSPARK_PYTHON says otherwise, and this Python's bin
    folder on PATH so its spark-submit is found when none other is."""
    out = dict(env)
    out["LAKEOPS_CONFIG"] = config_path
    out.setdefault("PYSPARK_PYTHON", python)
    bin_dir = str(Path(python).parent)
    path = out.get("PATH", "")
    if bin_dir not in path.split(os.pathsep):
        out["PATH"] = f"{path}{os.pathsep}{bin_dir}" if path else bin_dir
    return out
