"""Fixtures that start real services as processes on loopback: a whole Airflow deployment
(airflow_services, one per test session), and a data stack per module (stack: S3Proxy, Iceberg's
REST catalog on it, a Spark standalone cluster of one master and two workers; the lakeops
environment points at them while the module runs)."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.conftest import shipped_models
from tests.e2e.airflow_services import PROJECT_ROOT, AirflowServices, start_airflow
from tests.e2e.servers import (
    S3_COMPAT_ENV,
    Processes,
    S3Server,
    SparkCluster,
    start_rest_catalog,
    start_s3proxy,
    start_spark_cluster,
)

TEST_DAGS = Path(__file__).resolve().parent / "dags"
DISCOVERED_NAMESPACE = "e2e_discovered"
"""Every table a test creates in this namespace is maintained by the session's Airflow (a discovery rule)."""


NEVER_CREATED = "e2e.never_created"
"""A table the session's config names and no test creates: the health pages show it as not created yet."""


EXTERNAL_SOURCE = "lakeops.e2e_external_orders"
"""A table no lakeops task writes (the tests write it with pyiceberg, as another tool would); the model
EXTERNAL_MODEL reads it."""
EXTERNAL_MODEL = "e2e_external_copy"
CHAINED_MODEL = "e2e_external_daily"
"""A model over EXTERNAL_MODEL's table: it runs when EXTERNAL_MODEL's task commits, through the asset that task emits."""


def session_config(target: Path) -> Path:
    """The shipped include/lakeops.yaml plus a discovery rule for DISCOVERED_NAMESPACE, NEVER_CREATED, the model
    EXTERNAL_MODEL over EXTERNAL_SOURCE, whose commits its DAG's asset watcher polls every 10 s, and CHAINED_MODEL
    over EXTERNAL_MODEL's table."""
    config = yaml.safe_load((PROJECT_ROOT / "include" / "lakeops.yaml").read_text())
    config["discover"] = [{"namespaces": [DISCOVERED_NAMESPACE]}]
    config["tables"][NEVER_CREATED] = {}
    config["models"] = shipped_models()  # their SQL files named by absolute paths: the file moved
    config["tables"][f"lakeops.{EXTERNAL_MODEL}"] = {"create": {
        "columns": {"id": "bigint not null", "amount": "bigint", "created_at": "timestamp"},
        "partition_by": ["day(created_at)"]}}
    config["models"][EXTERNAL_MODEL] = {
        "sql": str(Path(__file__).resolve().parent / "external_copy.sql"), "key": ["id"], "partition_column": "created_at",
        "sources": {"orders": {"kind": "append", "table": EXTERNAL_SOURCE, "time_column": "created_at"}}}
    config["tables"][f"lakeops.{CHAINED_MODEL}"] = {"create": {
        "columns": {"day": "timestamp", "amount": "bigint", "orders": "bigint"}, "partition_by": ["day(day)"]}}
    config["models"][CHAINED_MODEL] = {
        "sql": str(Path(__file__).resolve().parent / "external_daily.sql"), "key": ["day"], "partition_column": "day",
        "sources": {"copies": {"kind": "changelog", "table": f"lakeops.{EXTERNAL_MODEL}", "time_column": "created_at",
                               "keys": {"day": "date_trunc('day', created_at)"}}}}
    config["health"] = {**config.get("health", {}), "watch_interval_seconds": 10, "watch_min_event_interval_seconds": 10}
    target.write_text(yaml.safe_dump(config, sort_keys=False))
    return target


def build_dags_folder(target: Path) -> Path:
    """The project's DAG files plus the test-only DAGs of tests/e2e/dags, linked into one folder."""
    target.mkdir(parents=True, exist_ok=True)
    for source in [*sorted((PROJECT_ROOT / "dags").glob("*.py")), *sorted(TEST_DAGS.glob("*.py"))]:
        if not source.name.startswith("_"):
            (target / source.name).symlink_to(source)
    return target


RUNNING: list[AirflowServices] = []
"""The session's deployment while it runs."""


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Stop the session's Airflow after the last test that uses it: its scheduler and dag-processor
    would otherwise keep parsing and looping, on the suite's two cores, until the session ends."""
    if not RUNNING or "airflow_services" not in getattr(item, "fixturenames", ()):
        return
    items = item.session.items
    later = items[items.index(item) + 1:]
    if not any("airflow_services" in getattr(other, "fixturenames", ()) for other in later):
        RUNNING.pop().stop()


@pytest.fixture(scope="session")
def airflow_services() -> AirflowServices:
    """A running Airflow (scheduler, dag-processor, triggerer, api-server) for the whole test session.

    DAGs are created paused: a test unpauses (or triggers) only the DAGs it runs. Use
    `services.cli(...)` for `airflow` commands against it, `services.api(...)` for the REST API
    and `services.token()` for a bearer token. Its config is the shipped one plus a discovery rule for
    DISCOVERED_NAMESPACE (`services.env["LAKEOPS_CONFIG"]`)."""
    home = Path(tempfile.mkdtemp(prefix="lakeops-airflow-"))
    started = time.monotonic()
    config = session_config(home / "lakeops.yaml")
    services = start_airflow(home / "home", build_dags_folder(home / "dags"), {"LAKEOPS_CONFIG": str(config)})
    print(f"\nAirflow services healthy at {services.base_url} after {time.monotonic() - started:.1f} s")
    RUNNING.append(services)
    try:
        yield services
    finally:
        if RUNNING:
            RUNNING.pop().stop()
        shutil.rmtree(home, ignore_errors=True)


BUCKET = "lakeops"
LANDING_PREFIX = "landing"


@dataclass(frozen=True)
class Stack:
    s3: S3Server
    rest_uri: str
    spark: SparkCluster
    work_dir: Path

    @property
    def landing(self) -> str:
        return f"s3a://{BUCKET}/{LANDING_PREFIX}"

    def s3_client(self):
        import boto3

        return boto3.client("s3", endpoint_url=self.s3.endpoint, aws_access_key_id=self.s3.access_key,
                            aws_secret_access_key=self.s3.secret_key, region_name="us-east-1")


@pytest.fixture(scope="module")
def stack(tmp_path_factory, airflow_db):
    work_dir = tmp_path_factory.mktemp("e2e-stack")
    access_key, secret_key = "lakeops-e2e", secrets.token_hex(16)
    processes = Processes(work_dir)
    with pytest.MonkeyPatch.context() as patch:
        for key, value in S3_COMPAT_ENV.items():
            patch.setenv(key, value)
        try:
            s3 = start_s3proxy(processes, dict(os.environ), access_key, secret_key)
            stack_env = {"AWS_ACCESS_KEY_ID": access_key, "AWS_SECRET_ACCESS_KEY": secret_key, "AWS_REGION": "us-east-1"}
            for key, value in stack_env.items():
                patch.setenv(key, value)
            # No AWS_ENDPOINT_URL: lakeops' own files (zonemaps, markers, staging) reach the S3 server through
            # the table's FileIO (s3.endpoint from the catalog config), as the table data does.
            patch.delenv("AWS_ENDPOINT_URL", raising=False)
            stack = Stack(s3, "", None, work_dir)  # type: ignore[arg-type]
            stack.s3_client().create_bucket(Bucket=BUCKET)
            rest_uri = start_rest_catalog(processes, dict(os.environ), s3, f"s3://{BUCKET}/warehouse")
            # Workers hand their environment (the S3 keys) to the executors they start.
            cluster = start_spark_cluster(processes, dict(os.environ), workers=2)
            stack = Stack(s3, rest_uri, cluster, work_dir)
            patch.setenv("LAKEOPS_CATALOG_KIND", "rest")
            patch.setenv("LAKEOPS_REST_URI", rest_uri)
            patch.setenv("LAKEOPS_WAREHOUSE", f"s3://{BUCKET}/warehouse")
            patch.setenv("LAKEOPS_S3_ENDPOINT", s3.endpoint)
            patch.setenv("LAKEOPS_LANDING_DIR", stack.landing)
            # A REST catalog has no database of ours: health history goes to its own (the sensors record there).
            patch.setenv("LAKEOPS_HEALTH_DB_URL", f"sqlite:///{work_dir / 'health.db'}")
            patch.setenv("SPARK_LOCAL_IP", "127.0.0.1")
            patch.setenv("AIRFLOW_CONN_LAKEOPS_SPARK", json.dumps(
                {"conn_type": "spark", "host": "spark://127.0.0.1", "port": cluster.master_port,
                 "extra": {"deploy-mode": "client"}}))
            yield stack
        finally:
            processes.stop_all()
