"""Where the set-up step put what Spark needs: the JVM jars and the --py-files archive.

`make setup` resolves the jars from Maven Central into build/jars and zips the library
into build/lakeops.zip (for submitting by hand). Deployments that install lakeops elsewhere
point LAKEOPS_JARS_DIR at their jars; LAKEOPS_PY_FILES, when set, replaces the archive the
operator otherwise builds from the running code at every submit.
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


def build_library_archive(destination: str | Path) -> str:
    """Zip the lakeops package this process imports, for --py-files. Built from the running code,
    so a cluster always executes the same library version as the worker that submitted the job."""
    import zipfile

    import lakeops

    package = Path(lakeops.__file__).resolve().parent
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(destination, "w", zipfile.ZIP_DEFLATED) as archive:
        for source in sorted(package.rglob("*.py")):
            archive.write(source, Path("lakeops") / source.relative_to(package))
    return str(destination)


def py_files_archive(work_dir: str | Path) -> str:
    """$LAKEOPS_PY_FILES when the deployment provides an archive, else a fresh one in work_dir."""
    return os.environ.get(PY_FILES_ENV) or build_library_archive(Path(work_dir) / "lakeops.zip")


def spark_job_path(name: str) -> str:
    """Absolute path of a spark-submit entry point in spark_jobs/."""
    return str(PROJECT_ROOT / "spark_jobs" / f"{name}.py")


def spark_submit_command(job: str, job_args: list[str], work_dir: str | Path, master: str = "local[2]") -> list[str]:
    """The spark-submit command line of a lakeops job outside Airflow (benchmarks, tests, by hand):
    what LakeopsSparkSubmitOperator submits, on a given master."""
    return ["spark-submit", "--master", master, "--name", f"lakeops {job}", "--conf", "spark.log.level=WARN",
            "--jars", ",".join(spark_jars()), "--py-files", py_files_archive(work_dir), spark_job_path(job), *job_args]
