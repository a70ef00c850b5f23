"""Selective reads on the small-file table, four ways, for the same predicates:

* spark: Spark SQL over the Iceberg table, with Iceberg's own pruning (partitions, manifest and
  file min/max metrics); planning time, files and bytes from the Iceberg scan's Spark metrics
  (totalPlanningDuration, resultDataFiles, totalDataFileSize);
* zonemap (pyarrow): lakeops.zonemap.reads: candidate_files() (hot entries in memory, the daily
  master from disk) intersected with pyiceberg's planned tasks, read by pyiceberg's Arrow reader;
* zonemap (Spark): lakeops.spark.zonemap_reads.pruned_frame: the candidate files' scan tasks
  staged as an Iceberg scan task set, read by Spark;
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
from lakeops.zonemap.reads import pruned_tasks

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


def make_queries(scan: pa.Table, now: datetime) -> list[Query]:
    """The six predicates: one user over 2 hours, one country over a day, event types over a
    week; each for a recent (hot) and an old (cold) range."""
    import pyarrow.compute as pc

    counts = scan.group_by("user_id").aggregate([("user_id", "count")]).rename_columns(["user_id", "n"])

    def window(start: datetime, end: datetime) -> pa.Table:
        t = scan.column("event_time")
        return scan.filter(pc.and_(pc.greater_equal(t, pa.scalar(start, t.type)), pc.less(t, pa.scalar(end, t.type))))

    hot_2h, cold_2h = (now - timedelta(hours=2), now), (now - timedelta(days=10), now - timedelta(days=10) + timedelta(hours=2))
    queries = [
        Query("one user_id, 2 hours", "hot", "user_id", (pick_user(counts, window(*hot_2h)),), *hot_2h),
        Query("one user_id, 2 hours", "cold", "user_id", (pick_user(counts, window(*cold_2h)),), *cold_2h),
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


def spark_read(spark: SparkSession, qualified: str, query: Query) -> tuple[pa.Table, dict[str, int]]:
    df = spark.table(qualified).where(query.sql())
    rows = df.toArrow()
    metrics: dict[str, int] = {}
    leaves = df._jdf.queryExecution().executedPlan().collectLeaves()
    for i in range(leaves.size()):
        found = leaves.apply(i).metrics()
        for key in ("totalPlanningDuration", "resultDataFiles", "totalDataFileSize"):
            if found.contains(key):
                metrics[key] = metrics.get(key, 0) + int(found.apply(key).value())
    return rows, metrics


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    began = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - began


def _arrow_read(table: Table, query: Query, tasks: list[FileScanTask]) -> pa.Table:
    scan = table.scan(row_filter=query.expression())
    return ArrowScan(scan.table_metadata, scan.io, scan.projection(), scan.row_filter, scan.case_sensitive,
                     scan.limit).to_table(tasks)


def _spark(spark: SparkSession, qualified: str, table: Table, query: Query, oracle: list[FileScanTask]) -> Measure:
    (rows, metrics), wall = _timed(lambda: spark_read(spark, qualified, query))
    return Measure(query.name, query.range, "spark", metrics.get("totalPlanningDuration", 0) / 1000, wall,
                   metrics.get("resultDataFiles", -1), metrics.get("totalDataFileSize", -1), rows.num_rows, 0)


def _zonemap_arrow(spark: SparkSession, qualified: str, table: Table, query: Query, oracle: list[FileScanTask]) -> Measure:
    began = time.perf_counter()
    tasks, found, _ = pruned_tasks(table, query.expression())
    planned = time.perf_counter() - began
    rows = _arrow_read(table, query, tasks)
    return Measure(query.name, query.range, "zonemap (pyarrow)", planned, time.perf_counter() - began, len(tasks),
                   sum(t.file.file_size_in_bytes for t in tasks), rows.num_rows, found.live_files)


def _zonemap_spark(spark: SparkSession, qualified: str, table: Table, query: Query, oracle: list[FileScanTask]) -> Measure:
    began = time.perf_counter()
    with pruned_frame(spark, qualified, table, query.expression()) as read:
        planned = time.perf_counter() - began
        rows = read.frame.toArrow()
    return Measure(query.name, query.range, "zonemap (Spark)", planned, time.perf_counter() - began, read.files_read,
                   read.bytes_read, rows.num_rows, read.candidates.live_files)


def _oracle(spark: SparkSession, qualified: str, table: Table, query: Query, oracle: list[FileScanTask]) -> Measure:
    rows, wall = _timed(lambda: _arrow_read(table, query, oracle))
    return Measure(query.name, query.range, "oracle", 0.0, wall, len(oracle), sum(t.file.file_size_in_bytes for t in oracle),
                   rows.num_rows, 0)


RUNNERS = {"spark": _spark, "zonemap (pyarrow)": _zonemap_arrow, "zonemap (Spark)": _zonemap_spark, "oracle": _oracle}
METHODS = tuple(RUNNERS)


def measure_query(spark: SparkSession, qualified: str, table: Table, query: Query, oracle: list[FileScanTask],
                  live: int, repetitions: int) -> list[Measure]:
    """Median planning and wall time over `repetitions` runs per method, after one warm-up run."""
    runs: dict[str, list[Measure]] = {m: [] for m in METHODS}
    for rep in range(repetitions + 1):
        for method, runner in RUNNERS.items():
            measure = runner(spark, qualified, table, query, oracle)
            if rep:  # run 0 warms up the JIT and caches (the hot index among them)
                runs[method].append(measure)
    results = []
    for method, measures in runs.items():
        first = measures[0]
        results.append(Measure(first.query, first.range, method, statistics.median(m.planning_s for m in measures),
                               statistics.median(m.wall_s for m in measures), first.files, first.bytes, first.rows, live))
    counts = {m.method: m.rows for m in results}
    if len(set(counts.values())) != 1:
        raise AssertionError(f"{query.label}: methods disagree on the matching rows: {counts}")
    log.info("%s: %s", query.label, ", ".join(f"{m.method} {m.files} files {m.wall_s:.2f} s" for m in results))
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

    from lakeops.zonemap.index import hot_index, index_files

    files = index_files(table.location())
    hot, _ = hot_index(files)
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
    return IndexMemory(stats.files, stats.bytes, stats.max_bytes, len(hot), master_entries, master_bytes)


def run_reads(spark: SparkSession, qualified: str, table: Table, now: datetime,
              repetitions: int) -> tuple[list[Measure], list[Query]]:
    live = {t.file.file_path: t for t in table.scan().plan_files()}
    by_local = {_local(p): p for p in live}
    began = time.perf_counter()
    scan = full_scan(table)
    queries = make_queries(scan, now)
    oracles = {q: oracle_files(table, scan, q, by_local) for q in queries}
    log.info("oracle: predicate columns of %d files read once in %.1f s", len(live), time.perf_counter() - began)
    results = []
    for query in queries:
        results += measure_query(spark, qualified, table, query, [live[p] for p in oracles[query]], len(live), repetitions)
    return results, queries
