"""What spark-submit needs to run a lakeops job: the job's file, the JVM jars and the --py-files archive.

The job files ship inside the package (lakeops/jobs/), so an installed lakeops submits them from
site-packages and never looks for a checkout. The jars come from Maven Central once, at set-up:
`make setup` puts them in build/jars of a checkout; an installed lakeops resolves the pom it ships
with `lakeops-jars DIR` (or Maven by hand) and points LAKEOPS_JARS_DIR at DIR. LAKEOPS_PY_FILES, when
set, replaces the archive the operator otherwise builds from the running code at every submit.
"""

from __future__ import annotations

import os
from pathlib import Path

from lakeops.config_file import checkout_root
from lakeops.exceptions import ConfigError, SetupError

JARS_ENV = "LAKEOPS_JARS_DIR"
PY_FILES_ENV = "LAKEOPS_PY_FILES"
REQUIRED_JARS = ("iceberg-spark-runtime-4.1_2.13", "iceberg-aws-bundle", "sqlite-jdbc", "postgresql")
JOBS_DIR = Path(__file__).resolve().parent / "jobs"
JARS_POM = Path(__file__).resolve().parent / "jvm" / "pom.xml"
JARS_COMMAND = "lakeops-jars"
JIT_OPTION = "-XX:-DontCompileHugeMethods"
"""Lets HotSpot compile methods over 8,000 bytes of bytecode. Spark generates one method for a projection: the
events parse of a ten-column table is over that size and ran interpreted, at about 1.6 times the CPU per row."""
JAVA_OPTIONS_KEYS = ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions")


def jars_dir() -> Path | None:
    """$LAKEOPS_JARS_DIR, else a checkout's build/jars (where `make setup` puts them), else None."""
    if os.environ.get(JARS_ENV):
        return Path(os.environ[JARS_ENV])
    root = checkout_root()
    return root / "build" / "jars" if root is not None else None


def _how_to_get_jars(directory: Path | None) -> str:
    if checkout_root() is not None and not os.environ.get(JARS_ENV):
        return f"run `make setup` (or set {JARS_ENV} to a directory holding them)"
    target = str(directory) if directory is not None else "/opt/lakeops/jars"
    return (f"resolve them with `{JARS_COMMAND} {target}` (Maven, from the pom the package ships: {JARS_POM}) "
            f"and set {JARS_ENV}={target}")


def spark_jars(directory: Path | None = None) -> list[str]:
    """Local paths of the jars Spark needs (in directory, else jars_dir()), in a stable order.
    Raises SetupError saying how to get them when they were never resolved."""
    directory = directory or jars_dir()
    if directory is None:
        raise SetupError(f"{JARS_ENV} is not set, so lakeops cannot find the Spark jars; {_how_to_get_jars(None)}")
    found = sorted(str(p) for p in directory.glob("*.jar"))
    missing = [name for name in REQUIRED_JARS if not any(Path(p).name.startswith(name + "-") for p in found)]
    if missing:
        raise SetupError(f"Spark jars {', '.join(missing)} are missing from {directory}; {_how_to_get_jars(directory)}")
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


def job_names() -> list[str]:
    """The jobs the package ships (lakeops/jobs/<name>.py)."""
    return sorted(p.stem for p in JOBS_DIR.glob("*.py") if not p.name.startswith("_"))


def spark_job_path(name: str) -> str:
    """Absolute path of a job's module file inside the installed package, the file spark-submit runs."""
    path = JOBS_DIR / f"{name}.py"
    if not name.isidentifier() or name.startswith("_") or not path.is_file():
        raise ConfigError(f"job {name!r} is not a lakeops job; use one of {', '.join(job_names())}")
    return str(path)


def with_jit_option(conf: dict[str, str]) -> dict[str, str]:
    """conf with JIT_OPTION added to the driver's and executors' Java options, beside the options conf already
    gives them; a conf that names DontCompileHugeMethods itself is left as it is."""
    merged = dict(conf)
    for key in JAVA_OPTIONS_KEYS:
        current = merged.get(key, "")
        if "DontCompileHugeMethods" not in current:
            merged[key] = f"{JIT_OPTION} {current}".strip()
    return merged


def submit_conf(conf: dict[str, str] | None = None) -> dict[str, str]:
    """The --conf settings of a lakeops spark-submit: Spark's INFO chatter off (it would bury the job's progress
    lines) and the JIT option, under the settings conf gives."""
    return with_jit_option({"spark.log.level": "WARN", **(conf or {})})


def spark_submit_command(job: str, job_args: list[str], work_dir: str | Path, master: str = "local[2]",
                         conf: dict[str, str] | None = None) -> list[str]:
    """The spark-submit command line of a lakeops job outside Airflow (benchmarks, tests, by hand):
    what LakeopsSparkSubmitOperator submits, on a given master, with the class archive when there is one."""
    from lakeops.class_archive import class_archive, with_class_archive

    settings = [arg for key, value in with_class_archive(submit_conf(conf), class_archive()).items()
                for arg in ("--conf", f"{key}={value}")]
    return ["spark-submit", "--master", master, "--name", f"lakeops {job}", *settings,
            "--jars", ",".join(spark_jars()), "--py-files", py_files_archive(work_dir), spark_job_path(job), *job_args]


def maven_command(pom: Path, directory: Path) -> list[str]:
    """The Maven command that copies the jars the pom lists (not their transitive dependencies:
    the Iceberg runtime and AWS bundle are shaded) into directory: what `make setup` runs."""
    return ["mvn", "-q", "-B", "-f", str(pom), "dependency:copy-dependencies", "-DexcludeTransitive=true",
            f"-DoutputDirectory={directory}"]


def jars_main(argv: list[str] | None = None) -> int:
    """`lakeops-jars DIR`: resolve the Spark jars of the installed lakeops from Maven Central into DIR,
    once, at set-up (no task downloads anything at run time). Then set LAKEOPS_JARS_DIR=DIR."""
    import argparse
    import shutil
    import subprocess

    parser = argparse.ArgumentParser(prog=JARS_COMMAND, description=jars_main.__doc__)
    parser.add_argument("directory", type=Path, nargs="?", help="where to put the jars (created if missing)")
    parser.add_argument("--print-pom", action="store_true", help="print the path of the shipped pom.xml and exit")
    args = parser.parse_args(argv)
    if args.print_pom:
        print(JARS_POM)
        return 0
    if args.directory is None:
        parser.error(f"give the directory to put the jars in, e.g. {JARS_COMMAND} /opt/lakeops/jars")
    if shutil.which("mvn") is None:
        print(f"{JARS_COMMAND}: Maven (mvn) is not on PATH; install it (apt-get install maven), or run the same "
              f"resolution elsewhere: {' '.join(maven_command(JARS_POM, args.directory))}")
        return 2
    directory = args.directory.expanduser().resolve()
    directory.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(maven_command(JARS_POM, directory), check=False)
    if done.returncode != 0:
        print(f"{JARS_COMMAND}: Maven failed (exit {done.returncode}) resolving {JARS_POM}; its output is above")
        return 1
    try:
        jars = spark_jars(directory)
    except SetupError as e:
        print(f"{JARS_COMMAND}: {e}")
        return 1
    print(f"{len(jars)} jars in {directory}; set {JARS_ENV}={directory} for Airflow's workers")
    return 0
