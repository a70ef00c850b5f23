"""Where the set-up step put what Spark needs: the JVM jars and the --py-files archive.

`make setup` resolves the jars from Maven Central into build/jars and zips the library
into build/lakeops.zip. Deployments that install lakeops elsewhere point
LAKEOPS_JARS_DIR and LAKEOPS_PY_FILES at their copies.
"""

from __future__ import annotations

import os
from pathlib import Path

from lakeops.exceptions import SetupError

JARS_ENV = "LAKEOPS_JARS_DIR"
PY_FILES_ENV = "LAKEOPS_PY_FILES"
PROJECT_ROOT = Path(__file__).resolve().parents[2]
REQUIRED_JARS = ("iceberg-spark-runtime-4.1_2.13", "iceberg-aws-bundle", "sqlite-jdbc", "postgresql")


def jars_dir() -> Path:
    return Path(os.environ.get(JARS_ENV) or PROJECT_ROOT / "build" / "jars")


def spark_jars() -> list[str]:
    """Local paths of the jars Spark needs, in a stable order. Raises when set-up has not run."""
    directory = jars_dir()
    found = sorted(str(p) for p in directory.glob("*.jar"))
    missing = [name for name in REQUIRED_JARS if not any(Path(p).name.startswith(name + "-") for p in found)]
    if missing:
        raise SetupError(
            f"Spark jars {', '.join(missing)} are missing from {directory}; run `make setup` "
            f"(or set {JARS_ENV} to a directory holding them)"
        )
    return found


def py_files_archive() -> str | None:
    """The zipped library for --py-files, when set-up built one."""
    path = Path(os.environ.get(PY_FILES_ENV) or PROJECT_ROOT / "build" / "lakeops.zip")
    return str(path) if path.exists() else None


def spark_job_path(name: str) -> str:
    """Absolute path of a spark-submit entry point in spark_jobs/."""
    return str(PROJECT_ROOT / "spark_jobs" / f"{name}.py")
