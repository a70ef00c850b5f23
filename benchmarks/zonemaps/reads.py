"""Selective reads on the small-file table, five ways, for the same predicates, cold and warm:

* spark: Spark SQL over the Iceberg table, with Iceberg's own pruning (partitions, manifest and
  file min/max metrics); planning time, files and bytes from the Iceberg scan's Spark metrics
  (totalPlanningDuration, resultDataFiles, totalDataFileSize);
* spark, Parquet Bloom filters + sort: the same over a copy of the table that writes Iceberg's
  Parquet Bloom filter on user_id and is ordered by user_id within each day (the baseline users
  would set up instead of an index);
* zonemap (Spark): lakeops.spark.zonemap_reads.pruned_frame (what lakeops.read returns):
  candidate_files() (the master plus the snapshots since, pruned over Arrow columns), then a few
  small candidates read in the driver into a local DataFrame, or their scan tasks staged from the
  index, or a plain Iceberg scan when the index says pruning would not pay (the method names which);
* zonemap (pyiceberg): lakeops.zonemap.reads (what `lakeops query` runs, no Spark): the same
  candidates, their tasks built from the index, read by pyiceberg's Arrow reader in this process;
* oracle: the files that truly hold a matching row (found once by reading the predicate columns
  of every file), read by pyiceberg's Arrow reader: the floor any pruning could reach.

Every method must return the same number of rows; a difference stops the run.
"""

from __future__ import annotations

import logging
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.dataset as ds
from pyiceberg import expressions as E
from pyiceberg.expressions.visitors import bind
from pyiceberg.io.pyarrow import ArrowScan, expression_to_pyarrow

from lakeops.spark.zonemap_reads import pruned_frame
from lakeops.zonemap.hot import hot_stats
from lakeops.zonemap.reads import arrow_rows, pruned_tasks

if TYPE_CHECKING:
    from pyiceberg.table import FileScanTask, Table
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)

PREDICATE_COLUMNS = ["event_time", "user_id", "country", "event_type"]


@dataclass(frozen=True)
class Query:
    name: str
    range: str
    """hot: a range ending now; cold: a range ending a week or more ago."""
    column: str
    values: tuple[Any, ...]
    start: datetime
    end: datetime

    @property
    def label(self) -> str:
        return f"{self.name} ({self.range})"

    def expression(self) -> E.BooleanExpression:
        time_range = E.And(E.GreaterThanOrEqual("event_time", self.start.isoformat()),
                           E.LessThan("event_time", self.end.isoformat()))
        match = E.EqualTo(self.column, self.values[0]) if len(self.values) == 1 else E.In(self.column, self.values)
        return E.And(match, time_range)

    def sql(self) -> str:
        values = ", ".join(repr(v) for v in self.values)
        return (f"{self.column} IN ({values}) AND event_time >= TIMESTAMP '{self.start:%Y-%m-%d %H:%M:%S}' "
                f"AND event_time < TIMESTAMP '{self.end:%Y-%m-%d %H:%M:%S}'")


@dataclass(frozen=True)
class Measure:
    query: str
    range: str
    method: str
    planning_s: float
    wall_s: float
    files: int
    bytes: int
    rows: int
    live_files: int
    cold_planning_s: float = 0.0
    cold_wall_s: float = 0.0
    runner: str = ""
    """The RUNNERS key that measured it (method may add how the read ran)."""


def _local(uri: str) -> str:
    parsed = urlparse(uri)
    return parsed.path if parsed.scheme in ("file", "") else uri


def arrow_filter(table: Table, expression: E.BooleanExpression) -> pa.compute.Expression:
    return expression_to_pyarrow(bind(table.schema(), expression, case_sensitive=True))


def pick_user(counts: pa.Table, window: pa.Table) -> int:
    """A user active in the window, of median activity over the whole table (neither the
    Zipf head, who is in every file, nor a one-off)."""
    active = set(window.column("user_id").to_pylist())
    users, activity = counts.column("user_id").to_pylist(), counts.column("n").to_pylist()
    ranked = sorted((n, u) for u, n in zip(users, activity, strict=True) if u in active)
    return ranked[len(ranked) // 2][1]


def _window(scan: pa.Table, start: datetime, end: datetime) -> pa.Table:
    import pyarrow.compute as pc

    t = scan.column("event_time")
    return scan.filter(pc.and_(pc.greater_equal(t, pa.scalar(start, t.type)), pc.less(t, pa.scalar(end, t.type))))


def _user_counts(scan: pa.Table) -> pa.Table:
    return scan.group_by("user_id").aggregate([("user_id", "count")]).rename_columns(["user_id", "n"])


def code_path_query(scan: pa.Table, now: datetime) -> Query:
    """A lookup like the measured ones, of another user in a window neither of them reads (3 days
    back), for the unmeasured run that loads every method's code paths."""
    start, end = now - timedelta(days=3, hours=2), now - timedelta(days=3)
    return Query("one user_id, 2 hours", "code paths", "user_id", (pick_user(_user_counts(scan), _window(scan, start, end)),),
                 start, end)


def make_queries(scan: pa.Table, now: datetime) -> list[Query]:
    """The six predicates: one user over 2 hours, one country over a day, event types over a
    week; each for a recent (hot) and an old (cold) range."""
    counts = _user_counts(scan)
    hot_2h, cold_2h = (now - timedelta(hours=2), now), (now - timedelta(days=10), now - timedelta(days=10) + timedelta(hours=2))
    queries = [
        Query("one user_id, 2 hours", "hot", "user_id", (pick_user(counts, _window(scan, *hot_2h)),), *hot_2h),
        Query("one user_id, 2 hours", "cold", "user_id", (pick_user(counts, _window(scan, *cold_2h)),), *cold_2h),
        Query("one country, 1 day", "hot", "country", ("DE",), now - timedelta(days=1), now),
        Query("one country, 1 day", "cold", "country", ("DE",), now - timedelta(days=11), now - timedelta(days=10)),
        Query("event_type IN (2), 1 week", "hot", "event_type", ("add_to_cart", "purchase"), now - timedelta(days=7), now),
        Query("event_type IN (2), 1 week", "cold", "event_type", ("add_to_cart", "purchase"), now - timedelta(days=14),
              now - timedelta(days=7)),
    ]
    return queries


def full_scan(table: Table) -> pa.Table:
    """The predicate columns of every live file, with the file each row is in (for the oracle)."""
    paths = [task.file.file_path for task in table.scan().plan_files()]
    dataset = ds.dataset([_local(p) for p in paths], format="parquet")
    parts = []
    for tagged in dataset.scanner(columns=PREDICATE_COLUMNS).scan_batches():
        batch = tagged.record_batch
        parts.append(pa.Table.from_batches([batch]).append_column("file", pa.array([tagged.fragment.path] * batch.num_rows)))
    return pa.concat_tables(parts)


def oracle_files(table: Table, scan: pa.Table, query: Query, by_local: dict[str, str]) -> list[str]:
    matching = scan.filter(arrow_filter(table, query.expression()))
    return sorted(by_local[p] for p in set(matching.column("file").to_pylist()))


def spark_rows(spark: SparkSession, qualified: str, query: Query) -> tuple[Any, pa.Table]:
    """Spark's read of the query (table lookup, planning and reading) and its rows as Arrow."""
    frame = spark.table(qualified).where(query.sql())
    return frame, frame.toArrow()


def scan_metrics(df: Any) -> dict[str, int]:
    """The Iceberg scans' metrics of a frame already run (planning ms, files, bytes). Read after the
    clock stops: walking the executed plan is the benchmark's bookkeeping, not the read's work (on a
    local frame whose rows were handed over without a job, it would plan the frame first)."""
    metrics: dict[str, int] = {}
    leaves = df._jdf.queryExecution().executedPlan().collectLeaves()
    for i in range(leaves.size()):
        found = leaves.apply(i).metrics()
        for key in ("totalPlanningDuration", "resultDataFiles", "totalDataFileSize"):
            if found.contains(key):
                metrics[key] = metrics.get(key, 0) + int(found.apply(key).value())
    return metrics


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    began = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - began


def _arrow_read(table: Table, query: Query, tasks: list[FileScanTask]) -> pa.Table:
    scan = table.scan(row_filter=query.expression())
    return ArrowScan(scan.table_metadata, scan.io, scan.projection(), scan.row_filter, scan.case_sensitive,
                     scan.limit).to_table(tasks)


def _spark(spark: SparkSession, qualified: str, table: Table, query: Query, oracle: list[FileScanTask]) -> Measure:
    (frame, rows), wall = _timed(lambda: spark_rows(spark, qualified, query))
    metrics = scan_metrics(frame)
    return Measure(query.name, query.range, "spark", metrics.get("totalPlanningDuration", 0) / 1000, wall,
                   metrics.get("resultDataFiles", -1), metrics.get("totalDataFileSize", -1), rows.num_rows, 0)


def _zonemap_spark(spark: SparkSession, qualified: str, table: Table, query: Query, oracle: list[FileScanTask]) -> Measure:
    began = time.perf_counter()
    with pruned_frame(spark, qualified, table, query.expression()) as read:
        planned = time.perf_counter() - began
        rows = read.frame.toArrow()
        wall = time.perf_counter() - began
        files, size = read.files_read, read.bytes_read
        if read.plan.method == "plain":  # Iceberg planned and read it: its own figures
            metrics = scan_metrics(read.frame)
            files, size = metrics.get("resultDataFiles", -1), metrics.get("totalDataFileSize", -1)
            planned += metrics.get("totalPlanningDuration", 0) / 1000
    return Measure(query.name, query.range, f"zonemap (Spark, {read.plan.method})", planned, wall,
                   files, size, rows.num_rows, read.candidates.live_files)


def _zonemap_pyiceberg(spark: SparkSession, qualified: str, table: Table, query: Query,
                       oracle: list[FileScanTask]) -> Measure:
    began = time.perf_counter()
    tasks, found, scan = pruned_tasks(table, query.expression())
    planned = time.perf_counter() - began
    rows = arrow_rows(scan, tasks)
    return Measure(query.name, query.range, "zonemap (pyiceberg)", planned, time.perf_counter() - began, len(tasks),
                   sum(t.file.file_size_in_bytes for t in tasks), rows.num_rows, found.live_files)


def _baseline(spark: SparkSession, qualified: str, table: Table, query: Query, oracle: list[FileScanTask]) -> Measure:
    (frame, rows), wall = _timed(lambda: spark_rows(spark, baseline_name(qualified), query))
    metrics = scan_metrics(frame)
    return Measure(query.name, query.range, BASELINE, metrics.get("totalPlanningDuration", 0) / 1000, wall,
                   metrics.get("resultDataFiles", -1), metrics.get("totalDataFileSize", -1), rows.num_rows, 0)


def _oracle(spark: SparkSession, qualified: str, table: Table, query: Query, oracle: list[FileScanTask]) -> Measure:
    rows, wall = _timed(lambda: _arrow_read(table, query, oracle))
    return Measure(query.name, query.range, "oracle", 0.0, wall, len(oracle), sum(t.file.file_size_in_bytes for t in oracle),
                   rows.num_rows, 0)


BASELINE = "spark, Parquet Bloom filters + sort"
RUNNERS = {"spark": _spark, BASELINE: _baseline, "zonemap (Spark)": _zonemap_spark,
           "zonemap (pyiceberg)": _zonemap_pyiceberg, "oracle": _oracle}
METHODS = tuple(RUNNERS)


def baseline_name(qualified: str) -> str:
    """The baseline copy of the table: Iceberg's Parquet Bloom filter on user_id and a sort order."""
    return f"{qualified[:-1]}_bloom`" if qualified.endswith("`") else f"{qualified}_bloom"


def build_baseline(spark: SparkSession, qualified: str) -> float:
    """Copy the table into one that writes Parquet Bloom filters on user_id, ordered by user_id within
    each day partition: what a user would set up instead of an index. Returns its seconds."""
    began = time.perf_counter()
    name = baseline_name(qualified)
    spark.sql(f"CREATE TABLE {name} USING iceberg PARTITIONED BY (days(event_time)) "
              "TBLPROPERTIES ('write.parquet.bloom-filter-enabled.column.user_id'='true', 'format-version'='2') "
              f"AS SELECT * FROM {qualified} WHERE false")
    spark.sql(f"ALTER TABLE {name} WRITE ORDERED BY user_id, event_time")
    spark.sql(f"INSERT INTO {name} SELECT * FROM {qualified}")
    return time.perf_counter() - began


def _cold_start(spark: SparkSession, qualified: str) -> None:
    """Drop what this process holds of the index and Spark's cached table objects: the next run is cold."""
    from lakeops.zonemap.history import DELTAS
    from lakeops.zonemap.hot import HOT

    HOT.clear()
    DELTAS.clear()
    spark.sql(f"REFRESH TABLE {qualified}")
    spark.sql(f"REFRESH TABLE {baseline_name(qualified)}")


def load_code_paths(spark: SparkSession, qualified: str, table: Table, query: Query, oracle: list[FileScanTask]) -> None:
    """One unmeasured run of every method, on a lookup none of the measured ones makes, before the first
    cold run. It loads each method's classes and code paths once (Spark's filtered Iceberg scan; for the
    zonemap read, Spark's Arrow conversion, which the first local DataFrame of a process loads in 0.3 to
    0.4 s), so that no cold figure carries its process's start-up, whichever method runs first."""
    began = time.perf_counter()
    for runner in RUNNERS.values():
        runner(spark, qualified, table, query, oracle)
    log.info("code paths of %d methods loaded (one unmeasured run each) in %.1f s", len(RUNNERS),
             time.perf_counter() - began)


def measure_query(spark: SparkSession, qualified: str, table: Table, query: Query, oracle: list[FileScanTask],
                  live: int, repetitions: int) -> list[Measure]:
    """Per method: the median of `repetitions` cold runs (each right after dropping the caches) and
    of `repetitions` warm runs after them."""
    cold_runs: dict[str, list[Measure]] = {m: [] for m in METHODS}
    runs: dict[str, list[Measure]] = {m: [] for m in METHODS}
    for _ in range(repetitions):
        for method, runner in RUNNERS.items():
            _cold_start(spark, qualified)
            cold_runs[method].append(runner(spark, qualified, table, query, oracle))
    for _ in range(repetitions):
        for method, runner in RUNNERS.items():
            runs[method].append(runner(spark, qualified, table, query, oracle))
    results = []
    for runner, warm in runs.items():
        cold = cold_runs[runner]
        results.append(Measure(query.name, query.range, warm[0].method, statistics.median(m.planning_s for m in warm),
                               statistics.median(m.wall_s for m in warm), warm[0].files, warm[0].bytes, warm[0].rows, live,
                               statistics.median(m.planning_s for m in cold), statistics.median(m.wall_s for m in cold),
                               runner))
    counts = {m.method: m.rows for m in results}
    if len(set(counts.values())) != 1:
        raise AssertionError(f"{query.label}: methods disagree on the matching rows: {counts}")
    log.info("%s: %s", query.label, ", ".join(f"{m.method} {m.files} files {m.wall_s:.2f} s (cold {m.cold_wall_s:.2f} s)"
                                                for m in results))
    return results


@dataclass(frozen=True)
class IndexMemory:
    hot_files: int
    hot_bytes: int
    max_bytes: int
    hot_entries: int
    master_entries: int
    master_bytes: int


def index_memory(table: Table) -> IndexMemory:
    """What the hot index holds in memory (lakeops.zonemap.hot: Arrow sizes of the cached entries),
    against the daily master on disk."""
    from pyarrow.fs import FileSystem, FileType

    from lakeops.zonemap.index import STORED, index_files, load_columns
    from lakeops.zonemap.store import types_for

    files = index_files(table.location())
    hot = [load_columns(uri, types_for(table.schema()), blooms=STORED) for uri in files.hourly + files.micro]
    stats = hot_stats()
    master_entries = master_bytes = 0
    if files.master:
        import pyarrow.parquet as pq

        fs, path = FileSystem.from_uri(files.master)
        info = fs.get_file_info(path)
        if info.type == FileType.File:
            master_bytes = info.size
            with fs.open_input_file(path) as stream:
                master_entries = pq.ParquetFile(stream).metadata.num_rows
    return IndexMemory(stats.files, stats.bytes, stats.max_bytes, sum(len(h) for h in hot if h is not None),
                       master_entries, master_bytes)


def run_reads(spark: SparkSession, qualified: str, table: Table, now: datetime,
              repetitions: int, selective_only: bool = False) -> tuple[list[Measure], list[Query]]:
    """Every query (or only the one-user_id ones) read by every method, cold and warm."""
    live = {t.file.file_path: t for t in table.scan().plan_files()}
    by_local = {_local(p): p for p in live}
    began = time.perf_counter()
    scan = full_scan(table)
    queries = [q for q in make_queries(scan, now) if q.column == "user_id" or not selective_only]
    oracles = {q: oracle_files(table, scan, q, by_local) for q in queries}
    log.info("oracle: predicate columns of %d files read once in %.1f s", len(live), time.perf_counter() - began)
    warm_up = code_path_query(scan, now)
    load_code_paths(spark, qualified, table, warm_up, [live[p] for p in oracle_files(table, scan, warm_up, by_local)])
    results = []
    for query in queries:
        results += measure_query(spark, qualified, table, query, [live[p] for p in oracles[query]], len(live), repetitions)
    return results, queries
