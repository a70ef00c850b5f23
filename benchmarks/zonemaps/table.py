"""A table of many small files, built fast: events written as small Parquet files with pyarrow
(one per 2-minute micro-batch over two weeks), registered with pyiceberg's add_files (one commit
per hour of batches, as hourly-committed micro-batches would leave it), then indexed with
lakeops' own write_micro_zonemap, one micro zonemap per commit; the daily consolidation rolls
all but the last hours into the master on disk (cold), leaving recent micro zonemaps (hot).

Rows look like the ingested events: Zipf-skewed users, weighted countries, event types and
devices, 3% late events (5 to 180 minutes late, kept inside the file's day partition), each file
sorted by event_time as the table's write order sorts it.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from lakeops.generator.events import COUNTRIES, COUNTRY_WEIGHTS, DEVICE_WEIGHTS, DEVICES, EVENT_TYPES, EVENT_WEIGHTS

if TYPE_CHECKING:
    from pyiceberg.table import Table

    from lakeops.config import TableConfig

log = logging.getLogger(__name__)

US = 1_000_000
# Required columns are non-nullable; the field ids are added from the table's schema when writing.
ARROW_SCHEMA = pa.schema([
    pa.field("event_id", pa.string(), nullable=False),
    pa.field("user_id", pa.int64(), nullable=False),
    pa.field("session_id", pa.string(), nullable=False),
    pa.field("event_time", pa.timestamp("us", tz="UTC"), nullable=False),
    pa.field("event_type", pa.string(), nullable=False),
    pa.field("page", pa.string()),
    pa.field("device", pa.string()),
    pa.field("country", pa.string()),
    pa.field("properties", pa.map_(pa.string(), pa.string())),
    pa.field("ingested_at", pa.timestamp("us", tz="UTC"), nullable=False),
])


@dataclass(frozen=True)
class SmallFileTable:
    files: int
    rows: int
    commits: int
    end: datetime
    """Arrival time of the last batch: 'now' for the queries."""
    build_seconds: dict[str, float]


def _pick(rng: np.random.Generator, options: tuple, weights: tuple, n: int) -> np.ndarray:
    p = np.asarray(weights, dtype=float)
    return np.asarray(options, dtype=object)[rng.choice(len(options), size=n, p=p / p.sum())]


def _zipf_users(rng: np.random.Generator, users: int, n: int) -> np.ndarray:
    cum = np.cumsum(1.0 / np.arange(1, users + 1) ** 1.1)
    return 1 + np.searchsorted(cum, rng.random(n) * cum[-1])


def batch_rows(rng: np.random.Generator, arrival: datetime, seconds: float, rows: int, users: int) -> pa.Table:
    """One micro-batch's events, sorted by event_time, all inside arrival's UTC day."""
    start_us = int(arrival.timestamp() * US)
    day_start_us = int(arrival.replace(hour=0, minute=0, second=0, microsecond=0).timestamp() * US)
    arrivals = start_us + (rng.random(rows) * seconds * US).astype(np.int64)
    late = rng.random(rows) < 0.03
    lag = np.where(late, rng.uniform(5 * 60, 180 * 60, rows), rng.uniform(0, 30, rows))
    event_time = np.clip(arrivals - (lag * US).astype(np.int64), day_start_us, day_start_us + 86400 * US - 1)
    order = np.argsort(event_time, kind="stable")
    event_time, arrivals = event_time[order], arrivals[order]
    user = _zipf_users(rng, users, rows)
    event_type = _pick(rng, EVENT_TYPES, EVENT_WEIGHTS, rows)
    product = rng.integers(1, 2001, rows)
    page = [{"search": "/search", "add_to_cart": "/cart", "purchase": "/checkout"}.get(t, f"/product/{p}")
            for t, p in zip(event_type, product, strict=False)]
    ids = rng.integers(0, 2**63, size=(rows, 2), dtype=np.int64)
    referrer = _pick(rng, ("direct", "search", "ads", "email"), (1, 1, 1, 1), rows)
    keys = pa.array(["product_id", "referrer"] * rows)
    items = pa.array([v for p, r in zip(product, referrer, strict=False) for v in (str(p), r)])
    properties = pa.MapArray.from_arrays(pa.array(np.arange(0, 2 * rows + 1, 2, dtype=np.int32)), keys, items)
    return pa.Table.from_arrays([
        pa.array([f"{a:016x}{b:016x}" for a, b in ids]),
        pa.array(user, pa.int64()),
        pa.array([f"s-{u}-{s}" for u, s in zip(user, rng.integers(1, 20, rows), strict=False)]),
        pa.array(event_time, pa.timestamp("us", tz="UTC")),
        pa.array(event_type, pa.string()),
        pa.array(page, pa.string()),
        pa.array(_pick(rng, DEVICES, DEVICE_WEIGHTS, rows), pa.string()),
        pa.array(_pick(rng, COUNTRIES, COUNTRY_WEIGHTS, rows), pa.string()),
        properties,
        pa.array(arrivals + 5 * US, pa.timestamp("us", tz="UTC")),
    ], schema=ARROW_SCHEMA)


def build_small_file_table(table: Table, spec: TableConfig, files: int, rows_per_file: int, days: int,
                           end: datetime, hot_hours: int, commit_hours: int = 1, users: int = 100_000,
                           seed: int = 11) -> SmallFileTable:
    """Fill the (empty) events table with `files` small files spread over `days` days ending at `end`,
    one commit per commit_hours of batches.

    When the batches reach the last hot_hours, the daily consolidation runs (consolidate_day: micro
    zonemaps -> the daily master on disk, covered micro files removed), so older files are served
    cold from the master and the last hot_hours from micro zonemaps held in memory."""
    rng = np.random.default_rng(seed)
    seconds = days * 86400 / files
    start = end - timedelta(days=days)
    data_dir = f"{table.location().rstrip('/')}/data"
    from pyarrow.fs import FileSystem

    fs, root = FileSystem.from_uri(data_dir)
    # With Iceberg's field ids in the files, as Spark writes them (readers that resolve columns by id need them).
    schema = table.schema().as_arrow()
    timings = {"write parquet": 0.0, "add_files": 0.0, "micro zonemaps": 0.0, "daily consolidation": 0.0}
    hot_from = end - timedelta(hours=hot_hours)
    consolidated = False
    hour: list[str] = []
    current_hour = None
    commits = 0

    def commit(paths: list[str]) -> None:
        nonlocal commits
        began = time.perf_counter()
        table.add_files(paths, check_duplicate_files=False)
        timings["add_files"] += time.perf_counter() - began
        began = time.perf_counter()
        from lakeops.zonemap.micro import write_micro_zonemap

        snapshot = table.current_snapshot()
        assert snapshot is not None
        write_micro_zonemap(table, spec, snapshot.snapshot_id)
        timings["micro zonemaps"] += time.perf_counter() - began
        commits += 1
        if commits % 48 == 0:
            log.info("small-file table: %d commits, %d files so far", commits, commits * len(paths))

    for i in range(files):
        arrival = start + timedelta(seconds=i * seconds)
        block = int((arrival - start).total_seconds() // (commit_hours * 3600))
        if current_hour is not None and block != current_hour and hour:
            commit(hour)
            hour = []
        if arrival >= hot_from and not consolidated:
            timings["daily consolidation"] = _consolidate(table, spec)
            consolidated = True
        current_hour = block
        began = time.perf_counter()
        data = batch_rows(rng, arrival, seconds, rows_per_file, users).cast(schema)
        folder = f"{root}/event_time_day={arrival:%Y-%m-%d}"
        fs.create_dir(folder, recursive=True)
        path = f"{folder}/{i:06d}-{arrival:%Y%m%dT%H%M%S}.parquet"
        pq.write_table(data, path, filesystem=fs, compression="zstd")
        hour.append(f"{data_dir}/event_time_day={arrival:%Y-%m-%d}/{path.rsplit('/', 1)[1]}")
        timings["write parquet"] += time.perf_counter() - began
    if hour:
        commit(hour)
    log.info("small-file table: %d files, %d commits (%s)", files, commits,
             ", ".join(f"{k} {v:.1f} s" for k, v in timings.items()))
    return SmallFileTable(files, files * rows_per_file, commits, end.astimezone(UTC), timings)


def _consolidate(table: Table, spec: TableConfig) -> float:
    """The daily run over everything committed so far (its scope follows commit time: the day of the
    current snapshot). Returns its seconds."""
    from lakeops.zonemap.consolidate import consolidate_day

    began = time.perf_counter()
    snapshot = table.current_snapshot()
    if snapshot is None:
        return 0.0
    day = datetime.fromtimestamp(snapshot.timestamp_ms / 1000, tz=UTC).date()
    result = consolidate_day(table, spec, day)
    log.info("small-file table: daily master of %d entries, %d micro zonemaps removed", result.entries, result.removed_micro)
    return time.perf_counter() - began
