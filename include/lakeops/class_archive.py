"""A class-data-sharing archive (the JDK's AppCDS) of the classes a lakeops job's driver JVM loads.

Every spark-submit starts a JVM that loads and verifies the same tens of thousands of Spark, Hadoop, Iceberg and
Scala classes from their jars before the job does any work: most of a batch run's fixed cost. The archive holds
them already parsed and verified; a JVM given it (-XX:SharedArchiveFile) maps them instead. It is built once, at
set-up, by a training run: the events ingest of a small built-in table on a throw-away embedded catalog, its
JVM started with -XX:ArchiveClassesAtExit. Then every lakeops spark-submit passes it to the driver.

Safe by construction: a JVM whose JDK or class path differs from the training run's (another Spark, other jars)
ignores the archive with a warning and runs as before; a path that does not exist is ignored. A damaged file is
the one thing that stops a JVM, so an archive is written under a temporary name, checked by a JVM, and only then
renamed into place.

    python -m lakeops.class_archive [PATH]      # default: lakeops-classes.jsa in the jars directory
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from lakeops.exceptions import SetupError

log = logging.getLogger(__name__)

ARCHIVE_NAME = "lakeops-classes.jsa"
ARCHIVE_ENV = "LAKEOPS_CLASS_ARCHIVE"
"""A path to use instead of the jars directory's archive, or "none" for no archive."""
DRIVER_OPTIONS = "spark.driver.extraJavaOptions"
ARCHIVE_OPTIONS = ("-XX:SharedArchiveFile", "-XX:ArchiveClassesAtExit")
WARNINGS_TO_STDERR = "-Xlog:disable -Xlog:all=warning:stderr"
"""The JVM's own warnings (an archive it cannot use, for one) to stderr, beside Spark's log, not into the stdout
a job's result line and the CLI's JSON share."""
TRAINING_TABLE = "class_archive_training"
TRAINING_ROWS = 2_000


def class_archive() -> Path | None:
    """The archive lakeops jobs' drivers map: $LAKEOPS_CLASS_ARCHIVE, else lakeops-classes.jsa in the jars directory
    when it was built; None when there is none (or the variable says none)."""
    from lakeops.runtime import jars_dir

    named = os.environ.get(ARCHIVE_ENV, "").strip()
    if named.lower() == "none":
        return None
    if named:
        path = Path(named).expanduser()
        if not path.is_file():
            raise SetupError(f"{ARCHIVE_ENV}={named} is not a file; build it with `python -m lakeops.class_archive "
                             f"{named}`, or set {ARCHIVE_ENV}=none to run without one")
        return path
    directory = jars_dir()
    found = directory / ARCHIVE_NAME if directory is not None else None
    return found if found is not None and found.is_file() else None


def with_class_archive(conf: dict[str, str], archive: Path | None) -> dict[str, str]:
    """conf with the driver JVM mapping archive, before the driver's other Java options; unchanged when archive
    is None or conf already names an archive (to map, or to write)."""
    current = conf.get(DRIVER_OPTIONS, "")
    if archive is None or any(option in current for option in ARCHIVE_OPTIONS):
        return dict(conf)
    # First: logging options the conf gives come after -Xlog:disable and so still count.
    return {**conf, DRIVER_OPTIONS: f"-XX:SharedArchiveFile={archive} {WARNINGS_TO_STDERR} {current}".strip()}


def training_config(work_dir: Path) -> dict:
    """The training run's config: one events table with a partition, a sort order, a map column, quarantine and a
    micro zonemap with a Bloom filter, so the archive holds the classes of all of those."""
    return {
        "catalog": {"name": "training", "namespace": "lakeops", "data_dir": str(work_dir / "data")},
        "landing_dir": str(work_dir / "landing"),
        "tables": {TRAINING_TABLE: {
            "source": TRAINING_TABLE,
            "create": {"columns": {"event_id": "string not null", "event_time": "timestamp not null",
                                   "user_id": "bigint not null", "kind": "string", "attributes": "map<string, string>",
                                   "ingested_at": "timestamp not null"},
                       "partition_by": ["day(event_time)"], "sort_by": ["event_time"]},
            "zonemap": {"columns": ["event_time", "user_id"], "bloom_columns": ["user_id"]}}}}


def training_lines(moment: datetime, rows: int = TRAINING_ROWS) -> list[str]:
    """rows JSON events around moment, and one line that is not JSON (it goes to the quarantine)."""
    import json

    lines = [json.dumps({"event_id": f"e{i}", "event_time": (moment + timedelta(milliseconds=i)).isoformat(),
                         "user_id": i % 97, "kind": ("view", "click")[i % 2], "attributes": {"k": str(i % 5)}})
             for i in range(rows)]
    return [*lines, "not json"]


def check_archive(path: Path) -> None:
    """Raise SetupError unless a JVM starts with path as its archive (a truncated one stops the JVM)."""
    java = Path(os.environ["JAVA_HOME"]) / "bin" / "java" if os.environ.get("JAVA_HOME") else "java"
    with tempfile.TemporaryDirectory(prefix="lakeops-class-archive-check-") as crash_dir:  # a crash's report goes there
        done = subprocess.run([str(java), f"-XX:SharedArchiveFile={path}", f"-XX:ErrorFile={crash_dir}/hs_err.log",
                               "-XX:-CreateCoredumpOnCrash", "-version"], capture_output=True, text=True, check=False,
                              cwd=crash_dir)
    if done.returncode != 0:
        raise SetupError(f"the class archive {path} stops the JVM (exit {done.returncode}): "
                         f"{(done.stdout + done.stderr).strip()[-300:]}; delete it and build it again")


def build_class_archive(destination: Path) -> Path:
    """Train, check and install the archive at destination (an existing one is replaced only by a good one)."""
    import yaml

    from lakeops.cli.master import job_environment
    from lakeops.config import load_config
    from lakeops.ingest.plan import plan_ingest
    from lakeops.runtime import spark_submit_command

    destination = destination.expanduser().resolve()
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(f".{destination.name}.{os.getpid()}.partial")
    with tempfile.TemporaryDirectory(prefix="lakeops-class-archive-") as work:
        work_dir = Path(work)
        config_path = work_dir / "lakeops.yaml"
        config_path.write_text(yaml.safe_dump(training_config(work_dir)))
        start = datetime.now(UTC).replace(second=0, microsecond=0)
        end = start + timedelta(minutes=1)
        plan = plan_ingest(load_config(config_path), TRAINING_TABLE, start, end)
        folder = Path(plan.source_dirs[0])
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "training.json").write_text("\n".join(training_lines(start)) + "\n")
        command = spark_submit_command("ingest_events", ["--table", TRAINING_TABLE, "--start", start.isoformat(),
                                                         "--end", end.isoformat(), "--config", str(config_path)],
                                       work_dir, conf={DRIVER_OPTIONS: f"-XX:ArchiveClassesAtExit={partial}"})
        log.info("class archive: training run (the ingest of %d rows into a throw-away table), then the JVM writes "
                 "the classes it loaded to %s", TRAINING_ROWS, destination)
        began = time.perf_counter()
        try:
            done = subprocess.run(command, capture_output=True, text=True, check=False,
                                  env=job_environment(os.environ, sys.executable, str(config_path)))
            if done.returncode != 0 or not partial.is_file():
                raise SetupError(f"the class archive's training run failed (exit {done.returncode}); its output ends:\n"
                                 f"{(done.stdout + done.stderr)[-3000:]}\nFix the cause, or set {ARCHIVE_ENV}=none "
                                 "to run lakeops without an archive")
            check_archive(partial)
            os.replace(partial, destination)
        finally:
            partial.unlink(missing_ok=True)
    log.info("class archive: %s, %.0f MB, built in %.0f s", destination, destination.stat().st_size / 1e6,
             time.perf_counter() - began)
    return destination


def main(argv: list[str] | None = None) -> int:
    import argparse

    from lakeops.runtime import jars_dir

    parser = argparse.ArgumentParser(prog="python -m lakeops.class_archive", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path, nargs="?", help=f"where to write it (default: {ARCHIVE_NAME} in the jars "
                        "directory, where lakeops jobs look for it)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    directory = jars_dir()
    destination = args.path or (directory / ARCHIVE_NAME if directory is not None else None)
    if destination is None:
        parser.error("give the archive's path (no jars directory is set: LAKEOPS_JARS_DIR)")
    try:
        build_class_archive(destination)
    except SetupError as error:
        print(f"lakeops.class_archive: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
