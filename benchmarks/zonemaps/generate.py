"""A metadata-only table of many files, built fast: Iceberg manifests listing data files that do not
exist (pyiceberg fast appends of DataFile records with real-looking column metrics), and the lakeops
index over them built column-wise with pyarrow (a daily master reconciled against the snapshot of
the last bulk commit, written by the consolidation's master writer, then micro zonemaps of a few
recent commits). Nothing ever reads the data
files, so planning time and index memory are measured at 100,000 and 1,000,000 files on one machine.

Each file holds 2 minutes of one day's events: event_time bounds of that window, user_id bounds
spanning the user range (as Zipf-skewed users leave them), country and event_type bounds spanning
their value sets, so min/max prune on time only. Bloom filters are random bit arrays half full, sized
as lakeops sizes a filter of 200 values at the default false-positive rate (zonemap.bloom_fpp, 0.005%:
516 bytes, 14 hashes): an absent value passes one with probability 1/2^hashes, as a filter at its
design capacity.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from lakeops.config import ZonemapConfig
from lakeops.zonemap.bloom import bloom_shape

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table

log = logging.getLogger(__name__)

US = 1_000_000
SCHEMA = pa.schema([
    pa.field("user_id", pa.int64(), nullable=False),
    pa.field("event_time", pa.timestamp("us", tz="UTC"), nullable=False),
    pa.field("country", pa.string()),
    pa.field("event_type", pa.string(), nullable=False),
])
ROWS = 200
BLOOM_BITS, BLOOM_HASHES = bloom_shape(ROWS, ZonemapConfig.bloom_fpp)
BLOOM_BYTES = BLOOM_BITS // 8


@dataclass(frozen=True)
class GeneratedTable:
    files: int
    commits: int
    recent_commits: int
    master_bytes: int
    seconds: dict[str, float]


def _windows(files: int, end: datetime, seconds_per_file: int) -> np.ndarray:
    """Start of each file's window in microseconds, oldest first."""
    start = int(end.timestamp() * US) - files * seconds_per_file * US
    return start + np.arange(files, dtype=np.int64) * seconds_per_file * US


def _data_files(table: Table, paths: list[str], starts: np.ndarray, seconds_per_file: int) -> list:
    from pyiceberg.conversions import to_bytes
    from pyiceberg.manifest import DataFile, DataFileContent, FileFormat
    from pyiceberg.typedef import Record
    from pyiceberg.types import LongType, StringType, TimestamptzType

    ids = {f.name: f.field_id for f in table.schema().fields}
    long_t, ts_t, str_t = LongType(), TimestamptzType(), StringType()
    lo_user, hi_user = to_bytes(long_t, 1), to_bytes(long_t, 100_000)
    lo_c, hi_c, lo_e, hi_e = (to_bytes(str_t, v) for v in ("AR", "US", "add_to_cart", "view"))
    out = []
    for path, start in zip(paths, starts.tolist(), strict=True):
        out.append(DataFile.from_args(
            content=DataFileContent.DATA, file_path=path, file_format=FileFormat.PARQUET,
            partition=Record(start // (86_400 * US)), record_count=ROWS, file_size_in_bytes=20_000,
            value_counts={}, null_value_counts={ids["user_id"]: 0, ids["event_time"]: 0, ids["country"]: 0,
                                                ids["event_type"]: 0},
            lower_bounds={ids["user_id"]: lo_user, ids["event_time"]: to_bytes(ts_t, start), ids["country"]: lo_c,
                          ids["event_type"]: lo_e},
            upper_bounds={ids["user_id"]: hi_user, ids["event_time"]: to_bytes(ts_t, start + seconds_per_file * US - 1),
                          ids["country"]: hi_c, ids["event_type"]: hi_e},
            spec_id=table.spec().spec_id))
    return out


def _entries(table: Table, paths: list[str], starts: np.ndarray, snapshot_id: int, seconds_per_file: int,
             rng: np.random.Generator) -> pa.Table:
    """Zonemap rows (lakeops.zonemap.store.SCHEMA) for the files, built column-wise."""
    from lakeops.zonemap.store import SCHEMA as STORED

    n = len(paths)
    ids = {f.name: f.field_id for f in table.schema().fields}

    def fixed(values: np.ndarray) -> pa.Array:
        return pa.FixedSizeBinaryArray.from_buffers(pa.binary(8), n, [None, pa.py_buffer(values.astype("<i8").tobytes())]).cast(
            pa.binary())

    def const(value: bytes) -> pa.Array:
        return pa.array([value] * n, pa.binary()) if n < 1000 else pa.repeat(pa.scalar(value, pa.binary()), n)

    def column(field_id: int, type_name: str, lower: pa.Array, upper: pa.Array) -> pa.StructArray:
        return pa.StructArray.from_arrays(
            [pa.repeat(pa.scalar(field_id, pa.int32()), n), pa.repeat(pa.scalar(type_name), n), lower, upper,
             pa.repeat(pa.scalar(0, pa.int64()), n)], fields=list(STORED.field("columns").type.value_type))

    cols = [
        column(ids["event_time"], "timestamptz", fixed(starts), fixed(starts + seconds_per_file * US - 1)),
        column(ids["user_id"], "long", fixed(np.ones(n, np.int64)), fixed(np.full(n, 100_000, np.int64))),
        column(ids["country"], "string", const(b"AR"), const(b"US")),
        column(ids["event_type"], "string", const(b"add_to_cart"), const(b"view")),
    ]
    # Interleave: entry i holds cols[0][i], cols[1][i], ... (take over the concatenation).
    stacked = pa.concat_arrays(cols)
    order = (np.arange(len(cols))[None, :] * n + np.arange(n)[:, None]).reshape(-1)
    columns = pa.ListArray.from_arrays(pa.array(np.arange(0, n * len(cols) + 1, len(cols), dtype=np.int32)),
                                       stacked.take(pa.array(order)))
    bits = rng.integers(0, 256, size=n * BLOOM_BYTES, dtype=np.uint8)
    bits_array = pa.Array.from_buffers(pa.binary(), n, [None, pa.py_buffer(np.arange(0, (n + 1) * BLOOM_BYTES, BLOOM_BYTES,
                                                                                     dtype=np.int32).tobytes()),
                                                       pa.py_buffer(bits.tobytes())])
    blooms = pa.ListArray.from_arrays(pa.array(np.arange(n + 1, dtype=np.int32)), pa.StructArray.from_arrays(
        [pa.repeat(pa.scalar(ids["user_id"], pa.int32()), n), bits_array, pa.repeat(pa.scalar(BLOOM_HASHES, pa.int32()), n)],
        fields=list(STORED.field("blooms").type.value_type)))
    days = (starts // (86_400 * US)).astype(str)
    return pa.Table.from_arrays([pa.array(paths, pa.string()), pa.repeat(pa.scalar(snapshot_id, pa.int64()), n),
                                 pa.repeat(pa.scalar(ROWS, pa.int64()), n), pa.repeat(pa.scalar(20_000, pa.int64()), n),
                                 pa.array(days, pa.string()), columns, blooms], schema=STORED)


def generate(catalog: Catalog, identifier: str, files: int, end: datetime, recent_commits: int = 24,
             files_per_recent_commit: int = 10, files_per_commit: int = 20_000, seed: int = 5) -> GeneratedTable:
    """Create identifier with `files` data files in the manifests and a consolidated index over all
    but the last recent_commits commits (their micro zonemaps written as ingest would)."""
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.transforms import DayTransform

    from lakeops.zonemap.levels import DAILY, Version
    from lakeops.zonemap.micro import micro_zonemap_uri
    from lakeops.zonemap.snapmap import now_ms, record_version, version_uri
    from lakeops.zonemap.store import publish, zonemap_root

    rng = np.random.default_rng(seed)
    timings = {"manifests": 0.0, "index": 0.0}
    table = catalog.create_table(identifier, SCHEMA)
    fid = table.schema().find_field("event_time").field_id
    with table.update_spec() as update:
        update.add_field("event_time", DayTransform(), "event_time_day")
    table = table.refresh()
    assert table.spec() != PartitionSpec() and isinstance(table.spec().fields[0], PartitionField) and fid
    recent = recent_commits * files_per_recent_commit
    bulk = files - recent
    seconds_per_file = 120
    starts = _windows(files, end, seconds_per_file)
    paths = [f"{table.location()}/data/event_time_day={s // (86_400 * US)}/{i:07d}.parquet"
             for i, s in enumerate(starts.tolist())]
    commits = 0
    began = time.perf_counter()
    for lo in range(0, bulk, files_per_commit):
        hi = min(bulk, lo + files_per_commit)
        with table.transaction() as tx, tx.update_snapshot().fast_append() as append:
            for data_file in _data_files(table, paths[lo:hi], starts[lo:hi], seconds_per_file):
                append.append_data_file(data_file)
        table = table.refresh()
        commits += 1
        log.info("generated %s: %d of %d files in the manifests", identifier, hi, files)
    timings["manifests"] += time.perf_counter() - began
    snapshot = table.current_snapshot()
    assert snapshot is not None
    began = time.perf_counter()
    root = zonemap_root(table.location())
    master = _entries(table, paths[:bulk], starts[:bulk], snapshot.snapshot_id, seconds_per_file, rng)
    uri = version_uri(root, DAILY, "generated", snapshot.sequence_number or 0, snapshot.snapshot_id)
    _publish_master(uri, master)
    record_version(root, Version(uri, DAILY, "generated", snapshot.snapshot_id, snapshot.sequence_number or 0, None,
                                 snapshot.timestamp_ms + 1, bulk, now_ms()))
    timings["index"] += time.perf_counter() - began
    for c in range(recent_commits):
        lo = bulk + c * files_per_recent_commit
        hi = lo + files_per_recent_commit
        began = time.perf_counter()
        with table.transaction() as tx, tx.update_snapshot().fast_append() as append:
            for data_file in _data_files(table, paths[lo:hi], starts[lo:hi], seconds_per_file):
                append.append_data_file(data_file)
        table = table.refresh()
        timings["manifests"] += time.perf_counter() - began
        commits += 1
        began = time.perf_counter()
        current = table.current_snapshot()
        assert current is not None
        publish(micro_zonemap_uri(table, current.snapshot_id),
                _entries(table, paths[lo:hi], starts[lo:hi], current.snapshot_id, seconds_per_file, rng))
        timings["index"] += time.perf_counter() - began
    fs_size = _size(uri)
    return GeneratedTable(files, commits, recent_commits, fs_size, timings)


def _publish_master(uri: str, data: pa.Table) -> None:
    """The master as lakeops' consolidation writes it (its writer and row-group size)."""
    from lakeops.zonemap.consolidate import MASTER_ROW_GROUP
    from lakeops.zonemap.groups import write_master

    write_master(uri, data, MASTER_ROW_GROUP)


def _written_as_now(uri: str) -> bool:
    """Whether a master has the current writer's layout: its row-group summary, row groups of its size."""
    import pyarrow.parquet as pq

    from lakeops.zonemap.consolidate import MASTER_ROW_GROUP
    from lakeops.zonemap.groups import SUMMARY_KEY
    from lakeops.zonemap.store import _filesystem

    fs, path = _filesystem(uri)
    with fs.open_input_file(path) as stream:
        meta = pq.ParquetFile(stream).metadata
    sizes = [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]
    return SUMMARY_KEY in (meta.metadata or {}) and all(n == MASTER_ROW_GROUP for n in sizes[:-1])


def rewrite_master(table: Table) -> int:
    """Write a generated table's master again with the current writer (same rows, in place) unless it
    has its layout already, so a table generated earlier is measured with today's master layout; its
    size in bytes."""
    from lakeops.zonemap.index import index_files
    from lakeops.zonemap.store import read_file

    master = index_files(table.location()).master
    assert master is not None, f"{table.name()} has no master zonemap"
    if not _written_as_now(master):
        log.info("%s: master %s written again by the current writer", table.name(), master)
        _publish_master(master, read_file(master))
    return _size(master)


def _size(uri: str) -> int:
    from lakeops.zonemap.store import _filesystem

    fs, path = _filesystem(uri)
    return fs.get_file_info(path).size or 0


def window_start(end: datetime, hours_back: float) -> datetime:
    return end - timedelta(hours=hours_back)
