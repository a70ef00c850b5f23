"""Fixtures of the unit tests: no Spark, no Airflow, no network; every test owns its files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lakeops.config import LakeopsConfig, parse_config

# Variables the shipped config file and the catalog read; unit tests must not see the caller's values.
_ENV_VARS = (
    "LAKEOPS_CONFIG",
    "LAKEOPS_CATALOG_KIND",
    "LAKEOPS_DATA_DIR",
    "LAKEOPS_REST_URI",
    "LAKEOPS_S3_ENDPOINT",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "LAKEOPS_CLASS_ARCHIVE",
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _ENV_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def spark_jars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A jars folder (LAKEOPS_JARS_DIR) holding an empty file for each jar lakeops requires, and a --py-files archive
    named by LAKEOPS_PY_FILES, so a spark-submit command is built without set-up."""
    from lakeops.runtime import REQUIRED_JARS

    folder = tmp_path / "jars"
    folder.mkdir()
    for name in REQUIRED_JARS:
        (folder / f"{name}-1.0.jar").write_text("")
    monkeypatch.setenv("LAKEOPS_JARS_DIR", str(folder))
    monkeypatch.setenv("LAKEOPS_PY_FILES", "/opt/lakeops/lakeops.zip")
    return folder


@pytest.fixture
def make_config(tmp_path: Path):
    """parse_config over a dict, with the config directory in tmp_path."""

    def make(data: dict[str, Any] | None = None, base_dir: Path | None = None) -> LakeopsConfig:
        return parse_config(data if data is not None else {}, base_dir or tmp_path)

    return make


@pytest.fixture(scope="session")
def declared_columns():
    """The columns the shipped include/lakeops.yaml declares for one of its demo tables (events, users, orders)."""
    import yaml

    project = Path(__file__).resolve().parents[2]
    data = yaml.safe_load((project / "include" / "lakeops.yaml").read_text())

    def columns(table: str) -> set[str]:
        return set(data["tables"][f"lakeops.{table}"]["create"]["columns"])

    return columns
