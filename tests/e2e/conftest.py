"""Fixtures that start real services as processes: a whole Airflow deployment (airflow_services)."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import pytest

from tests.e2e.airflow_services import PROJECT_ROOT, AirflowServices, start_airflow

TEST_DAGS = Path(__file__).resolve().parent / "dags"


def build_dags_folder(target: Path) -> Path:
    """The project's DAG files plus the test-only DAGs of tests/e2e/dags, linked into one folder."""
    target.mkdir(parents=True, exist_ok=True)
    for source in [*sorted((PROJECT_ROOT / "dags").glob("*.py")), *sorted(TEST_DAGS.glob("*.py"))]:
        if not source.name.startswith("_"):
            (target / source.name).symlink_to(source)
    return target


@pytest.fixture(scope="session")
def airflow_services() -> AirflowServices:
    """A running Airflow (scheduler, dag-processor, triggerer, api-server) for the whole test session.

    DAGs are created paused: a test unpauses (or triggers) only the DAGs it runs. Use
    `services.cli(...)` for `airflow` commands against it, `services.api(...)` for the REST API
    and `services.token()` for a bearer token."""
    home = Path(tempfile.mkdtemp(prefix="lakeops-airflow-"))
    started = time.monotonic()
    services = start_airflow(home / "home", build_dags_folder(home / "dags"))
    print(f"\nAirflow services healthy at {services.base_url} after {time.monotonic() - started:.1f} s")
    try:
        yield services
    finally:
        services.stop()
        shutil.rmtree(home, ignore_errors=True)
