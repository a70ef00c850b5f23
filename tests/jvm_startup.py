"""Faster start-up for the suite's Spark JVMs: a class-data-sharing archive of Spark's classes, built
once per machine, and the JIT's first tier only. Every test job is a short-lived spark-submit (or the
session's in-process Spark) over a few hundred rows, where JVM start-up and JIT compilation, not the
rows, take most of the time. Same Spark, same jars, same jobs: only the JVM's start-up changes.

The options go to SPARK_SUBMIT_OPTS, which spark-submit gives the driver JVM it starts (so pyspark's
in-process session, the CLI's and Airflow's spark-submits all get them). Cluster executors and the
other servers' JVMs are not touched. Without the archive (it could not be built) the options fall
back to the first tier alone; a JVM that cannot map the archive starts without it."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
ARCHIVE_DIR = PROJECT_ROOT / "build" / "jvm"
FIRST_TIER_ONLY = "-XX:TieredStopAtLevel=1"
QUIET = "-Xlog:disable -Xlog:all=error:stderr"  # no class-sharing warnings on stdout, which the CLI's JSON shares

WARM_UP_JOB = '''
import sys
from pyspark.sql import SparkSession

warehouse = sys.argv[1]
spark = (SparkSession.builder
         .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
         .config("spark.sql.catalog.warm", "org.apache.iceberg.spark.SparkCatalog")
         .config("spark.sql.catalog.warm.type", "hadoop")
         .config("spark.sql.catalog.warm.warehouse", warehouse)
         .getOrCreate())
spark.sql("CREATE TABLE warm.db.t (id BIGINT, ts TIMESTAMP, v STRING) USING iceberg PARTITIONED BY (hours(ts)) "
          "TBLPROPERTIES ('write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read', "
          "'write.merge.mode'='merge-on-read')")
spark.sql("INSERT INTO warm.db.t SELECT id, timestamp '2026-01-01' + make_interval(0,0,0,0,0,id,0), "
          "to_json(named_struct('id', id)) FROM range(1000)")
spark.sql("MERGE INTO warm.db.t t USING (SELECT id, 'x' AS v FROM range(0, 1000, 7)) s ON t.id = s.id "
          "WHEN MATCHED THEN UPDATE SET v = s.v")
spark.sql("DELETE FROM warm.db.t WHERE id % 11 = 0")
spark.sql("SELECT v, count(*), try_variant_get(try_parse_json(max(v)), '$.id', 'bigint') FROM warm.db.t "
          "WHERE ts > timestamp '2026-01-01 00:05:00' GROUP BY v").collect()
spark.sql("SELECT * FROM warm.db.t.files").collect()
spark.range(10).write.mode("overwrite").json(warehouse + "/json")
spark.read.json(warehouse + "/json").collect()
spark.stop()
'''


def _archive_path(jars: list[str]) -> Path:
    """The archive for this JVM, this Spark and these jars: any change makes a new one."""
    import pyspark

    java = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False).stderr
    key = "\n".join([java, pyspark.__version__, str(Path(pyspark.__file__).parent), *sorted(jars)])
    return ARCHIVE_DIR / f"spark-{hashlib.sha256(key.encode()).hexdigest()[:16]}.jsa"


def _build(archive: Path, jars: list[str]) -> bool:
    """Run the warm-up job once with the archive written at its exit; True when it was."""
    import tempfile

    partial = archive.with_suffix(f".{os.getpid()}.partial")
    with tempfile.TemporaryDirectory(prefix="lakeops-jvm-warm-up-") as work:
        job = Path(work) / "warm_up.py"
        job.write_text(WARM_UP_JOB)
        env = {**os.environ, "SPARK_SUBMIT_OPTS": f"{FIRST_TIER_ONLY} -XX:ArchiveClassesAtExit={partial} {QUIET}",
               "PYSPARK_PYTHON": sys.executable}
        done = subprocess.run(["spark-submit", "--master", "local[2]", "--conf", "spark.ui.enabled=false",
                               "--conf", "spark.log.level=ERROR", "--jars", ",".join(jars), str(job), f"{work}/wh"],
                              capture_output=True, text=True, env=env, check=False, timeout=600)
    if done.returncode != 0 or not partial.is_file():
        partial.unlink(missing_ok=True)
        print(f"\nno class-sharing archive for Spark (warm-up job exit {done.returncode}): the suite's JVMs start "
              f"without one\n{done.stderr[-2000:]}", file=sys.stderr)
        return False
    partial.replace(archive)
    return True


def suite_archive() -> Path | None:
    """The suite's archive for this JVM, Spark and jars, built on first use; None when it could not be."""
    import fcntl

    from lakeops.runtime import spark_jars

    jars = spark_jars()
    archive = _archive_path(jars)
    ARCHIVE_DIR.mkdir(parents=True, exist_ok=True)
    # pytest-xdist's workers collect at once: one builds the archive, the other waits for it.
    with open(ARCHIVE_DIR / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        ready = archive.is_file() or _build(archive, jars)
    return archive if ready else None


def spark_submit_opts(archive: Path | None) -> str:
    """The JVM options for every Spark driver of this test session."""
    return f"{FIRST_TIER_ONLY} -XX:SharedArchiveFile={archive} {QUIET}" if archive else f"{FIRST_TIER_ONLY} {QUIET}"
