"""Test environment, set before Airflow or Spark is imported: a private AIRFLOW_HOME, data dir and
Spark connection per test session, so tests never touch a developer's .lakeops/ or Airflow."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

from tests.workers import SharedServerScheduling, order_in_worker, prepare_controller

# Real servers every test directory can share (PostgreSQL, Kafka, Kafka Connect with Debezium): tests/servers/fixtures.py.
pytest_plugins = ["tests.servers.fixtures"]

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SESSION_DIR = Path(tempfile.mkdtemp(prefix="lakeops-tests-"))

os.environ.update({
    "AIRFLOW_HOME": str(SESSION_DIR / "airflow"),
    "AIRFLOW__CORE__DAGS_FOLDER": str(PROJECT_ROOT / "dags"),
    # lakeops' plugin comes from the package's entry point, as in an installed lakeops: no plugins folder of ours.
    "AIRFLOW__CORE__PLUGINS_FOLDER": str(SESSION_DIR / "airflow" / "plugins"),
    "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
    "AIRFLOW_CONN_LAKEOPS_SPARK": '{"conn_type": "spark", "host": "local[2]"}',
    "LAKEOPS_DATA_DIR": str(SESSION_DIR / "data"),
    "LAKEOPS_CONFIG": str(PROJECT_ROOT / "include" / "lakeops.yaml"),
    "PYSPARK_PYTHON": sys.executable,
    "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
})
# py4j logs "Closing down clientserver connection" from a finalizer after pytest closed its streams.
logging.getLogger("py4j").setLevel(logging.WARNING)


def pytest_configure(config):
    prepare_controller(config, SESSION_DIR)


def pytest_collection_modifyitems(session, config, items):
    """When any collected test starts a Spark JVM, give every Spark driver of the session the faster
    start-up of tests/jvm_startup.py (unless SPARK_SUBMIT_OPTS is set already), lakeops' class archive
    included. On an xdist worker, the shared servers' test files go first (tests/workers.py)."""
    if "SPARK_SUBMIT_OPTS" not in os.environ and any(
            item.get_closest_marker("spark") or "spark" in getattr(item, "fixturenames", ()) for item in items):
        from lakeops.class_archive import ARCHIVE_ENV
        from tests.jvm_startup import spark_submit_opts, suite_archive

        archive = suite_archive()
        os.environ["SPARK_SUBMIT_OPTS"] = spark_submit_opts(archive)
        # lakeops' own spark-submits (lakeops.class_archive) name the same archive, not a second one.
        os.environ[ARCHIVE_ENV] = str(archive) if archive else "none"
    order_in_worker(items)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadfile`: by file, the shared servers' files all on one worker (tests/workers.py)."""
    return SharedServerScheduling(config, log) if config.getvalue("dist") == "loadfile" else None


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(SESSION_DIR, ignore_errors=True)


@pytest.fixture(scope="session")
def airflow_db() -> Path:
    """A migrated Airflow metadata database (SQLite) for dag.test()."""
    home = Path(os.environ["AIRFLOW_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    airflow = str(Path(sys.executable).parent / "airflow")
    subprocess.run([airflow, "db", "migrate"], check=True, capture_output=True, env=os.environ.copy())
    subprocess.run([airflow, "pools", "set", "lakeops_spark", "2", "lakeops Spark jobs"], check=True,
                   capture_output=True, env=os.environ.copy())
    return home


@pytest.fixture(scope="session")
def spark():
    """One local Spark session for the whole run; each test registers its own catalog on it."""
    from lakeops.config import load_config
    from lakeops.spark.session import build_session

    session = build_session(load_config(), "lakeops tests", master="local[2]")
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def shipped_models() -> dict:
    """The ETL models of the shipped include/lakeops.yaml, their SQL files as absolute paths."""
    from benchmarks.common import shipped_config

    return shipped_config()["models"]


def config_data(base_dir: Path, tables: dict | None = None, models: dict | None = None) -> dict:
    """The config file's content for a fresh embedded catalog (own name, SQLite file, warehouse and
    landing zone under base_dir). Tables are those of the shipped include/lakeops.yaml (events,
    users, orders, with their policies) unless `tables` gives other table settings; models are the
    shipped ones with the shipped tables, else `models`."""
    import yaml

    shipped = yaml.safe_load((PROJECT_ROOT / "include" / "lakeops.yaml").read_text())["tables"]
    data = {
        "catalog": {"name": f"t{uuid.uuid4().hex[:10]}", "namespace": "lakeops", "data_dir": str(base_dir / "data")},
        "tables": shipped if tables is None else tables,
    }
    if models is not None or tables is None:
        data["models"] = shipped_models() if models is None else models
    return data


def make_test_config(base_dir: Path, tables: dict | None = None):
    """The parsed config of config_data."""
    from lakeops.config import parse_config

    return parse_config(config_data(base_dir, tables), base_dir)


def register_catalog(spark, config):
    """Register config's catalog on a running session (catalog settings are runtime SQL settings)."""
    from lakeops.catalog import SPARK_EXTENSIONS, ensure_embedded_storage, spark_catalog_conf

    ensure_embedded_storage(config.catalog)
    for key, value in spark_catalog_conf(config.catalog).items():
        if value != SPARK_EXTENSIONS:
            spark.conf.set(key, value)
    return spark


@pytest.fixture()
def lakeops_config(tmp_path):
    return make_test_config(tmp_path)


@pytest.fixture()
def catalog_spark(spark, lakeops_config):
    """The session spark with this test's catalog registered."""
    return register_catalog(spark, lakeops_config)
