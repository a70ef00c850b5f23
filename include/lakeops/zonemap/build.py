"""Zonemap entries for data files, from Iceberg's own per-file metrics (manifest lower/upper
bounds and null counts): no scan of the data. Two exceptions read single columns of the file
(by field id, so renamed columns are found): Bloom filters need the values, and string bounds
Iceberg truncated (to 16 characters by default) are replaced by the exact min and max."""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pyiceberg.conversions import from_bytes
from pyiceberg.manifest import DataFileContent, ManifestEntryStatus
from pyiceberg.types import PrimitiveType, StringType

from lakeops.zonemap.bloom import BLOOM_TYPES, BloomFilter
from lakeops.zonemap.entry import ColumnStats, ZonemapEntry
from lakeops.zonemap.hour_pairs import HOUR_TYPES, pair_keys

if TYPE_CHECKING:
    from pyiceberg.manifest import DataFile
    from pyiceberg.schema import Schema
    from pyiceberg.table import Table

    from lakeops.zonemap.live import LiveFile

log = logging.getLogger(__name__)

METRICS_DEFAULT = "write.metadata.metrics.default"
METRICS_COLUMN = "write.metadata.metrics.column."
_TRUNCATE = re.compile(r"truncate\((\d+)\)")


def added_data_files(table: Table, snapshot_id: int) -> list[DataFile]:
    snapshot = table.snapshot_by_id(snapshot_id)
    if snapshot is None:
        raise ValueError(f"snapshot {snapshot_id} is not in table {table.name()}")
    files = []
    for manifest in snapshot.manifests(table.io):
        if manifest.added_snapshot_id != snapshot_id:
            continue
        for entry in manifest.fetch_manifest_entry(table.io):
            if entry.status == ManifestEntryStatus.ADDED and entry.data_file.content == DataFileContent.DATA:
                files.append(entry.data_file)
    return files


def indexed_fields(schema: Schema, columns: Iterable[str]) -> list[Any]:
    """The configured columns present in schema (a renamed or dropped one is skipped, logged)."""
    fields = []
    for name in columns:
        try:
            field = schema.find_field(name)
        except ValueError:
            log.warning("zonemap column %r is not in the table schema (renamed or dropped); it is not indexed", name)
            continue
        if isinstance(field.field_type, PrimitiveType):
            fields.append(field)
    return fields


def truncate_length(properties: dict[str, str], column: str) -> int | None:
    """The length Iceberg truncates this column's bounds to; None when it keeps them whole."""
    mode = properties.get(METRICS_COLUMN + column) or properties.get(METRICS_DEFAULT) or "truncate(16)"
    match = _TRUNCATE.fullmatch(mode.strip())
    return int(match.group(1)) if match else (None if mode.strip() == "full" else 0)


def entry_from_metrics(data_file: DataFile, snapshot_id: int, table: Table, columns: tuple[str, ...]) -> ZonemapEntry:
    stats = {}
    for field in indexed_fields(table.schema(), columns):
        lower = (data_file.lower_bounds or {}).get(field.field_id)
        upper = (data_file.upper_bounds or {}).get(field.field_id)
        stats[field.field_id] = ColumnStats(
            lower=from_bytes(field.field_type, lower) if lower is not None else None,
            upper=from_bytes(field.field_type, upper) if upper is not None else None,
            null_count=(data_file.null_value_counts or {}).get(field.field_id),
        )
    return ZonemapEntry(data_file.file_path, snapshot_id, data_file.record_count, data_file.file_size_in_bytes,
                        partition_string(data_file), stats)


def partition_string(data_file: DataFile) -> str:
    """The partition as the index stores it: the values' Python forms joined by commas."""
    values = data_file.partition
    return ",".join(str(values[i]) for i in range(len(values))) if values else ""


def needs_exact_bounds(stats: ColumnStats, record_count: int, limit: int | None) -> bool:
    """A string bound Iceberg may have truncated (or not kept) for a column holding values."""
    if limit is None:
        return False
    if stats.null_count is not None and stats.null_count >= record_count:
        return False
    if stats.lower is None or stats.upper is None:
        return True
    return len(stats.lower) >= limit or len(stats.upper) >= limit


def read_columns_by_id(table: Table, path: str, field_ids: set[int]) -> dict[int, list[Any]]:
    """Values of the given columns of one data file, found by Parquet field id (timestamps as
    microseconds since the epoch, Iceberg's internal form)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with table.io.new_input(path).open() as stream:
        parquet = pq.ParquetFile(stream)
        names = {}
        for f in parquet.schema_arrow:
            raw = (f.metadata or {}).get(b"PARQUET:field_id")
            if raw is not None and int(raw) in field_ids:
                names[int(raw)] = f.name
        data = parquet.read(columns=list(names.values())) if names else None
    if data is None:
        return {}
    columns = {}
    for fid, name in names.items():
        column = data.column(name)
        if pa.types.is_timestamp(column.type):
            column = column.cast(pa.timestamp("us", column.type.tz), safe=False).cast(pa.int64())
        columns[fid] = column.to_pylist()
    return columns


def hour_field(schema: Schema, hour_column: str, blooms: list[Any]) -> Any | None:
    """The timestamp column whose hours the Bloom columns' values are paired with; None when there
    is none to pair (not set, no Bloom column, or not a timestamp column: logged)."""
    if not hour_column or not blooms:
        return None
    found = indexed_fields(schema, (hour_column,))
    if found and isinstance(found[0].field_type, HOUR_TYPES):
        return found[0]
    if found:
        log.warning("zonemap.bloom_hour_column %r is a %s column, not a timestamp; no hour pairs are kept",
                    hour_column, found[0].field_type)
    return None


def complete(table: Table, entry: ZonemapEntry, columns: tuple[str, ...], bloom_columns: tuple[str, ...],
             bloom_fpp: float, hour_column: str = "") -> ZonemapEntry:
    """Add Bloom filters (sized for bloom_fpp), the hour-pair filter when hour_column names a timestamp
    column (lakeops.zonemap.hour_pairs) and exact string bounds, reading only the columns that need them."""
    schema = table.schema()
    blooms = [f for f in indexed_fields(schema, bloom_columns) if isinstance(f.field_type, BLOOM_TYPES)]
    hours = hour_field(schema, hour_column, blooms)
    exact = [f for f in indexed_fields(schema, columns) if isinstance(f.field_type, StringType) and f.field_id in entry.columns
             and needs_exact_bounds(entry.columns[f.field_id], entry.record_count, truncate_length(table.properties, f.name))]
    wanted = {f.field_id for f in blooms + exact + ([hours] if hours is not None else [])}
    if not wanted:
        return entry
    values = read_columns_by_id(table, entry.file_path, wanted)
    stats = dict(entry.columns)
    for f in exact:
        present = [v for v in values.get(f.field_id, []) if v is not None]
        if f.field_id in values:
            stats[f.field_id] = dataclasses.replace(stats[f.field_id], lower=min(present, default=None),
                                                    upper=max(present, default=None))
    built = {f.field_id: BloomFilter.build(values[f.field_id], bloom_fpp) for f in blooms if f.field_id in values}
    if hours is not None and hours.field_id in values:
        paired = {f.field_id: values[f.field_id] for f in blooms if f.field_id in values}
        built[hours.field_id] = BloomFilter.build(pair_keys(paired, values[hours.field_id]), bloom_fpp)
    return dataclasses.replace(entry, columns=stats, blooms={**entry.blooms, **built})


def entries_for_files(table: Table, files: list[LiveFile], columns: tuple[str, ...],
                      bloom_columns: tuple[str, ...], bloom_fpp: float, hour_column: str = "") -> list[ZonemapEntry]:
    """Entries for live files the index lacks (reconcile), the same way a micro zonemap builds them."""
    entries = []
    for i, live in enumerate(files, 1):
        entry = entry_from_metrics(live.data_file, live.added_snapshot_id, table, columns)
        entries.append(complete(table, entry, columns, bloom_columns, bloom_fpp, hour_column))
        if i % 500 == 0:
            log.info("zonemap: built %d of %d entries from manifest metrics", i, len(files))
    return entries


def entries_for_snapshot(table: Table, snapshot_id: int, columns: tuple[str, ...],
                         bloom_columns: tuple[str, ...], bloom_fpp: float, hour_column: str = "") -> list[ZonemapEntry]:
    """One entry per data file the snapshot added, with Bloom filters for bloom_columns (and their hour pairs)."""
    entries = [complete(table, entry_from_metrics(f, snapshot_id, table, columns), columns, bloom_columns, bloom_fpp,
                        hour_column)
               for f in added_data_files(table, snapshot_id)]
    log.info("zonemap: %d entries for snapshot %s, Bloom filters on %s", len(entries), snapshot_id, list(bloom_columns))
    return entries
