"""What every benchmark shares: where results go, Markdown tables and plots, what a piece of work
cost (CPU of the Spark JVM and of this process; bytes and files Iceberg scans opened), and a
catalog of the benchmark's own under a scratch folder.

Results: benchmarks/results/<name>.md (the report), <name>.json (every measurement) and
<name>.png (the plot). A --quick run writes <name>_quick.*, which git ignores.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from lakeops.config import LakeopsConfig

RESULTS_DIR = Path(__file__).resolve().parent / "results"
PROJECT_ROOT = Path(__file__).resolve().parents[1]


# Results


def output_name(name: str, quick: bool) -> str:
    """The results name of a run: a --quick run never overwrites a full run's files."""
    return f"{name}_quick" if quick else name


def results_path(name: str, suffix: str) -> Path:
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    return RESULTS_DIR / f"{name}{suffix}"


def markdown_table(headers: list[str], rows: list[list[object]]) -> str:
    """A Markdown table; numbers are right-aligned as they are given (format them before)."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---:" if i else "---" for i in range(len(headers))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def write_results(name: str, text: str, data: Any = None) -> list[Path]:
    """Print a report and keep it: <name>.md, and <name>.json when there are measurements to keep."""
    print(text, flush=True)
    paths = [results_path(name, ".md")]
    paths[0].write_text(text)
    if data is not None:
        paths.append(results_path(name, ".json"))
        paths[1].write_text(json.dumps(data, indent=1, default=str))
    return paths


def pyplot():
    """matplotlib's pyplot, drawing to files only."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, name: str, dpi: int = 100) -> Path:
    """Write a figure to <name>.png and close it."""
    path = results_path(name, ".png")
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)
    return path


def configure_logging(level: int = logging.WARNING) -> None:
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for noisy in ("py4j", "pyiceberg"):
        logging.getLogger(noisy).setLevel(logging.ERROR)


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


# What a piece of work cost


@dataclass
class Cost:
    wall_s: float = 0.0
    jvm_cpu_s: float = 0.0
    """CPU seconds of the Spark driver JVM (local mode: driver and executors), user + system."""
    py_cpu_s: float = 0.0
    """CPU seconds of this Python process (pyiceberg metadata reads, planning)."""
    calls: int = 0

    @property
    def cpu_s(self) -> float:
        return self.jvm_cpu_s + self.py_cpu_s

    def add(self, other: Cost) -> None:
        self.wall_s += other.wall_s
        self.jvm_cpu_s += other.jvm_cpu_s
        self.py_cpu_s += other.py_cpu_s
        self.calls += other.calls

    def as_dict(self) -> dict[str, float]:
        return {**{k: round(v, 3) for k, v in asdict(self).items()}, "cpu_s": round(self.cpu_s, 3)}


class CpuMeter:
    """Cost of a block: wall time and CPU time of the JVM (from /proc) and of Python. CPU time is
    what a machine shared with other work disturbs least."""

    def __init__(self, spark: SparkSession) -> None:
        self._stat = f"/proc/{spark._jvm.java.lang.ProcessHandle.current().pid()}/stat"
        self._tick = os.sysconf("SC_CLK_TCK")

    def _jvm_cpu(self) -> float:
        with open(self._stat) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / self._tick  # utime, stime

    @contextmanager
    def measure(self, into: Cost) -> Iterator[None]:
        wall, jvm, py = time.perf_counter(), self._jvm_cpu(), time.process_time()
        try:
            yield
        finally:
            into.add(Cost(time.perf_counter() - wall, self._jvm_cpu() - jvm, time.process_time() - py, 1))


def time_queries(meter: CpuMeter, run: dict[str, Callable[[], Any]], repeats: int) -> dict[str, dict[str, float]]:
    """Median wall time and median JVM CPU time of each query, the queries taken round-robin
    `repeats` times (a burst of outside load hits every table alike)."""
    costs: dict[str, list[Cost]] = {name: [] for name in run}
    for _ in range(repeats):
        for name, query in run.items():
            cost = Cost()
            with meter.measure(cost):
                query()
            costs[name].append(cost)
    return {name: {"wall_s": statistics.median(c.wall_s for c in values),
                   "cpu_s": statistics.median(c.jvm_cpu_s for c in values)} for name, values in costs.items()}


SCAN_BYTES = ("total data file size (bytes)", "total delete file size (bytes)")
SCAN_FILES = ("number of result data files", "number of result delete files")


@dataclass(frozen=True)
class ScanCost:
    """Wall time, Spark jobs, and the bytes and files of the data and delete files Iceberg's scans
    opened: from the scan metrics of every BatchScan node of the SQL executions that ran (MERGE
    target scans included) and from the tasks of every staged read, after partition and min/max pruning,
    before column projection. Spark's
    task input metrics are no measure here: Iceberg's Parquet reads do not reach them."""

    seconds: float
    scanned_bytes: int
    scanned_files: int
    spark_jobs: int
    job_seconds: float = 0.0
    """the time at least one of the work's Spark jobs ran (the union of their intervals); the rest of
    `seconds` is the driver's own: planning, py4j calls, commits"""
    jobs: tuple[tuple[str, float], ...] = ()
    """each Spark job's name (its call site) and seconds, in order"""
    range_reads: int = 0
    """snapshot-range (incremental append) scans among them: Iceberg reports no file sizes for those, so their
    bytes and files are not in scanned_bytes and scanned_files; the caller adds what each read opens"""
    staged_bytes: int = 0
    """of scanned_bytes, those of the staged reads (lakeops.spark.scan_tasks.StagedReads: Iceberg's staged scans,
    which report no sizes either, so each is counted from the tasks it was given, delete files included)"""


def _last_execution(spark: SparkSession) -> int:
    executions = spark._jsparkSession.sharedState().statusStore().executionsList()
    return max((int(executions.apply(i).executionId()) for i in range(executions.size())), default=-1)


def _last_job(spark: SparkSession) -> int:
    jobs = spark.sparkContext._jsc.sc().statusStore().jobsList(spark._jvm.java.util.ArrayList())
    return max((int(jobs.apply(i).jobId()) for i in range(jobs.size())), default=-1)


def _jobs_since(spark: SparkSession, job: int) -> tuple[float, tuple[tuple[str, float], ...]]:
    """The union of the intervals of the Spark jobs after `job`, and each job's name and seconds."""
    jobs = spark.sparkContext._jsc.sc().statusStore().jobsList(spark._jvm.java.util.ArrayList())
    spans = []
    for i in range(jobs.size()):
        data = jobs.apply(i)
        if int(data.jobId()) <= job or not data.submissionTime().isDefined() or not data.completionTime().isDefined():
            continue
        # A job is named by its call site; the checkout's own path is left out, so results name files in it
        # the same wherever it lies.
        spans.append((int(data.jobId()), data.submissionTime().get().getTime() / 1000,
                      data.completionTime().get().getTime() / 1000, str(data.name()).replace(f"{PROJECT_ROOT}/", "")))
    spans.sort()
    busy, end = 0.0, float("-inf")
    for _, start, stop, _ in sorted(spans, key=lambda s: s[1]):
        busy += max(0.0, stop - max(start, end))
        end = max(end, stop)
    return busy, tuple((name, round(stop - start, 3)) for _, start, stop, name in spans)


def _metric_value(text: str) -> int:
    return int(text.replace(",", "")) if text.replace(",", "").isdigit() else 0


RANGE_SCAN = "IcebergIncrementalScan("


def _scans_since(spark: SparkSession, execution: int) -> tuple[int, int, int]:
    """(bytes, files, snapshot-range scans) of the BatchScan nodes of the SQL executions after `execution`."""
    store = spark._jsparkSession.sharedState().statusStore()
    executions = store.executionsList()
    scanned = files = range_reads = 0
    for i in range(executions.size()):
        run = executions.apply(i)
        if int(run.executionId()) <= execution:
            continue
        values = store.executionMetrics(run.executionId())
        nodes = store.planGraph(run.executionId()).allNodes()
        for n in range(nodes.size()):
            node = nodes.apply(n)
            if not node.name().startswith("BatchScan"):
                continue
            range_reads += RANGE_SCAN in str(node.desc())
            metrics = node.metrics()
            for m in range(metrics.size()):
                metric = metrics.apply(m)
                value = values.get(metric.accumulatorId())
                if value.isDefined() and metric.name() in SCAN_BYTES:
                    scanned += _metric_value(str(value.get()))
                elif value.isDefined() and metric.name() in SCAN_FILES:
                    files += _metric_value(str(value.get()))
    return scanned, files, range_reads


@contextmanager
def _staged_reads() -> Iterator[list[Any]]:
    """The task lists StagedReads reads meanwhile, one per read (their sizes are summed after the timed work, so their
    py4j calls are not timed)."""
    from lakeops.spark.scan_tasks import StagedReads

    staged: list[Any] = []
    read_java = StagedReads.read_java

    def recorded(self: StagedReads, tasks: Any, lineage: bool = False, metadata: tuple[str, ...] = ()) -> Any:
        staged.append(tasks)
        return read_java(self, tasks, lineage, metadata)

    StagedReads.read_java = recorded  # type: ignore[method-assign]
    try:
        yield staged
    finally:
        StagedReads.read_java = read_java  # type: ignore[method-assign]


def _staged_sizes(spark: SparkSession, staged: list[Any]) -> tuple[int, int]:
    """(bytes, files) of the data files of the staged tasks and of the delete files applied to them."""
    from lakeops.spark.scan_tasks import java_items

    size = files = 0
    for tasks in staged:
        for task in java_items(spark, tasks):
            deletes = java_items(spark, task.deletes())
            size += int(task.file().fileSizeInBytes()) + sum(int(d.fileSizeInBytes()) for d in deletes)
            files += 1 + len(deletes)
    return size, files


def measure_scans(spark: SparkSession, work: Callable[[], Any]) -> tuple[ScanCost, Any]:
    """Run work() and return what its scans cost, and its result."""
    sc = spark.sparkContext._jsc.sc()
    sc.listenerBus().waitUntilEmpty()
    execution, job = _last_execution(spark), _last_job(spark)
    with _staged_reads() as staged:
        started = time.perf_counter()
        result = work()
        seconds = time.perf_counter() - started
    sc.listenerBus().waitUntilEmpty()
    scanned, files, range_reads = _scans_since(spark, execution)
    staged_bytes, staged_files = _staged_sizes(spark, staged)
    busy, jobs = _jobs_since(spark, job)
    return ScanCost(seconds, scanned + staged_bytes, files + staged_files, _last_job(spark) - job, busy, jobs, range_reads,
                    staged_bytes), result


# The benchmark's own catalog


def shipped_config() -> dict[str, Any]:
    """The shipped include/lakeops.yaml as data, its models' SQL files named by absolute paths, so a copy
    written anywhere else still finds them (they are named relative to the shipped file)."""
    import yaml

    include = Path(__file__).resolve().parents[1] / "include"
    data = yaml.safe_load((include / "lakeops.yaml").read_text())
    data["models"] = {name: {**entry, "sql": str(include / entry["sql"])} if "sql" in entry else entry
                      for name, entry in (data.get("models") or {}).items()}
    return data


def streamed_config(work_dir: Path, table: str, trigger_seconds: int, max_files_per_trigger: int,
                    **ingest: Any) -> tuple[Path, LakeopsConfig]:
    """(file, config) of the shipped config with only its demo table `table` (events, users, orders) streamed, in an
    embedded catalog under work_dir: its trigger and micro-batch cap, ingest.mode streaming and `ingest` added.
    Written to a file, for the streaming job's spark-submit."""
    import yaml

    from lakeops.config import load_config

    data = shipped_config()
    data["catalog"] = {"name": "bench", "namespace": "lakeops", "data_dir": str(work_dir / "data")}
    data["landing_dir"] = str(work_dir / "landing")
    entry = data["tables"][f"lakeops.{table}"]
    entry["streaming"] = {**entry.get("streaming", {}), "trigger_interval_seconds": trigger_seconds,
                          "max_files_per_trigger": max_files_per_trigger}
    entry["ingest"] = {**entry.get("ingest", {}), "mode": "streaming", **ingest}
    data["tables"] = {table: entry}
    data.pop("models", None)  # the models' tables are not part of a throughput run
    path = work_dir / "lakeops.yaml"
    path.write_text(yaml.safe_dump(data))
    return path, load_config(path)


def demo_table(name: str, partition_by: list[str] | None = None, sort_by: list[str] | None = None,
               **settings: Any) -> dict[str, Any]:
    """The shipped config's entry of a demo table (events, users, orders: their declared columns, source and
    ingest format), with its partitioning or sort order replaced when given, and `settings` added."""
    import copy

    shipped = shipped_config()["tables"]
    entry = copy.deepcopy(shipped[f"lakeops.{name}"])
    if partition_by is not None:
        entry["create"]["partition_by"] = partition_by
    if sort_by is not None:
        entry["create"]["sort_by"] = sort_by
    return {**entry, **settings}


def bench_config(work_dir: Path, tables: dict[str, dict[str, Any]], name: str | None = None) -> LakeopsConfig:
    """A config of its own: catalog name (a new one unless given), SQLite file, warehouse and landing zone
    under work_dir."""
    from lakeops.config import parse_config

    return parse_config({"catalog": {"name": name or f"bench{uuid.uuid4().hex[:8]}", "namespace": "lakeops",
                                     "data_dir": str(work_dir / "data")},
                         "tables": tables}, work_dir)


def local_spark(config: LakeopsConfig, app_name: str) -> SparkSession:
    """A local[2] Spark session with config's catalog, logging errors only."""
    from lakeops.spark.session import build_session

    spark = build_session(config, app_name, master="local[2]")
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def with_catalog(session: SparkSession, config: LakeopsConfig) -> SparkSession:
    """Register config's catalog on a running session (catalog settings are runtime SQL settings)."""
    from lakeops.catalog import SPARK_EXTENSIONS, spark_catalog_conf

    for key, value in spark_catalog_conf(config.catalog).items():
        if value != SPARK_EXTENSIONS:
            session.conf.set(key, value)
    return session


def writer_session(spark: SparkSession, config: LakeopsConfig) -> SparkSession:
    """A session of its own per concurrent writer: the ingest sets spark.wap.id per session, so
    writers sharing one session would stage under each other's batch id."""
    return with_catalog(spark.newSession(), config)


def metadata_version(config: LakeopsConfig, table: str) -> int:
    """Iceberg commits so far to a table: the version number of its metadata file
    (NNNNN-<uuid>.metadata.json) counts every commit, snapshot or not."""
    from lakeops.catalog import load_catalog

    location = load_catalog(config.catalog).load_table(config.identifier(table)).metadata_location
    return int(location.rsplit("/", 1)[1].split("-", 1)[0])


def ingest_commits(config: LakeopsConfig, table: str) -> int:
    """Iceberg commits so far to an ingested table and its quarantine table."""
    spec = config.table(table)
    return metadata_version(config, spec.name) + metadata_version(config, spec.quarantine_name)


def total_records(config: LakeopsConfig, table: str) -> int:
    """Rows in a table's current snapshot, from its summary."""
    from lakeops.catalog import load_catalog

    snapshot = load_catalog(config.catalog).load_table(config.identifier(table)).current_snapshot()
    return int(snapshot.summary.get("total-records", 0)) if snapshot is not None and snapshot.summary else 0


def job_env() -> dict[str, str]:
    """spark-submit and the driver's Python from this interpreter's environment (as `make` sets them)."""
    bin_dir = str(Path(sys.executable).parent)
    # Unbuffered: a job stopped with SIGTERM leaves every log line it wrote (the benchmarks read them).
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "PYSPARK_PYTHON": sys.executable,
            "PYTHONUNBUFFERED": "1"}


def stop_job(job: subprocess.Popen) -> None:
    """Stop a job started with start_new_session=True: SIGTERM to its process group, SIGKILL after 60 s."""
    if job.poll() is None:
        os.killpg(job.pid, signal.SIGTERM)
        try:
            job.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(job.pid, signal.SIGKILL)
            job.wait()
