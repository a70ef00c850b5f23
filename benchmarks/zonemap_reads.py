"""Selective reads on the small-file table, three ways, for the same predicates:

* spark: Spark SQL over the Iceberg table, with Iceberg's own pruning (partitions, manifest and
  file min/max metrics); planning time, files and bytes from the Iceberg scan's Spark metrics
  (totalPlanningDuration, resultDataFiles, totalDataFileSize);
* zonemap: lakeops' candidate_files() (planning), then a pyarrow read of the candidate files
  with the predicate applied;
* oracle: the files that truly hold a matching row (found once by reading the predicate columns
  of every file), read the same way: the floor any pruning could reach.

Every method must return the same number of rows; a difference stops the run.
"""

from __future__ import annotations

import logging
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.dataset as ds
from pyiceberg import expressions as E
from pyiceberg.expressions.visitors import bind
from pyiceberg.io.pyarrow import expression_to_pyarrow

from lakeops.zonemap.candidates import candidate_files
from lakeops.zonemap.store import read_level, zonemap_root

if TYPE_CHECKING:
    from pyiceberg.table import Table
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)

METHODS = ("spark", "zonemap", "oracle")
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


def read_files(paths: list[str], predicate: pa.compute.Expression | None, columns: list[str] | None = None) -> pa.Table:
    """The rows of `paths` matching predicate, read with pyarrow (multi-threaded over the files)."""
    if not paths:
        return pa.table({})
    dataset = ds.dataset([_local(p) for p in paths], format="parquet")
    return dataset.to_table(columns=columns, filter=predicate)


def arrow_filter(table: Table, expression: E.BooleanExpression) -> pa.compute.Expression:
    return expression_to_pyarrow(bind(table.schema(), expression, case_sensitive=True))


def pick_user(counts: pa.Table, window: pa.Table) -> int:
    """A user active in the window, of median activity over the whole table (neither the
    Zipf head, who is in every file, nor a one-off)."""
    active = set(window.column("user_id").to_pylist())
    ranked = sorted((n, u) for u, n in zip(counts.column("user_id").to_pylist(), counts.column("n").to_pylist()) if u in active)
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


def measure_query(spark: SparkSession, qualified: str, table: Table, query: Query, oracle: list[str],
                  sizes: dict[str, int], repetitions: int) -> list[Measure]:
    """Median planning and wall time over `repetitions` runs (after one warm-up run) per method."""
    predicate = arrow_filter(table, query.expression())
    live = len(sizes)
    runs: dict[str, list[Measure]] = {m: [] for m in METHODS}
    for rep in range(repetitions + 1):
        (rows, metrics), wall = _timed(lambda: spark_read(spark, qualified, query))
        runs["spark"].append(Measure(query.name, query.range, "spark", metrics.get("totalPlanningDuration", 0) / 1000, wall,
                                     metrics.get("resultDataFiles", -1), metrics.get("totalDataFileSize", -1),
                                     rows.num_rows, live))
        began = time.perf_counter()
        found = candidate_files(table, query.expression())
        planned = time.perf_counter() - began
        rows = read_files(found.files, predicate)
        runs["zonemap"].append(Measure(query.name, query.range, "zonemap", planned, time.perf_counter() - began,
                                       len(found.files), sum(sizes[p] for p in found.files), rows.num_rows, live))
        rows, wall = _timed(lambda: read_files(oracle, predicate))
        runs["oracle"].append(Measure(query.name, query.range, "oracle", 0.0, wall, len(oracle),
                                      sum(sizes[p] for p in oracle), rows.num_rows, live))
        if rep == 0:
            for m in METHODS:
                runs[m].clear()  # the warm-up run: JIT, caches
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
    entries: int
    bytes: int
    hot_entries: int
    hot_bytes: int
    hot_window_hours: int


def index_memory(table: Table, now: datetime, hot_hours: int = 24) -> IndexMemory:
    """Python heap held by the micro entries once loaded (tracemalloc), and the share of the
    entries whose files reach into the last hot_hours: what a hot in-memory index would hold."""
    tracemalloc.start()
    entries, _ = read_level(zonemap_root(table.location()), "micro")
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    field_id = table.schema().find_field("event_time").field_id
    since = int((now - timedelta(hours=hot_hours)).timestamp() * 1_000_000)
    hot = sum(1 for e in entries if e.columns[field_id].upper is not None and e.columns[field_id].upper >= since)
    return IndexMemory(len(entries), held, hot, held * hot // max(len(entries), 1), hot_hours)


def run_reads(spark: SparkSession, qualified: str, table: Table, now: datetime, repetitions: int) -> tuple[list[Measure], list[Query]]:
    live = list(table.scan().plan_files())
    sizes = {t.file.file_path: t.file.file_size_in_bytes for t in live}
    by_local = {_local(p): p for p in sizes}
    began = time.perf_counter()
    scan = full_scan(table)
    queries = make_queries(scan, now)
    oracles = {q: oracle_files(table, scan, q, by_local) for q in queries}
    log.info("oracle: predicate columns of %d files read once in %.1f s", len(sizes), time.perf_counter() - began)
    results = []
    for query in queries:
        results += measure_query(spark, qualified, table, query, oracles[query], sizes, repetitions)
    return results, queries
