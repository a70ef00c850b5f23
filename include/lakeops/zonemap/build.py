"""Zonemap entries for the data files a snapshot added, from Iceberg's own per-file metrics
(manifest lower/upper bounds and null counts): no scan of the data. Bloom filters are the one
exception: they need the column's values, read column-only from the new files."""

from __future__ import annotations

import dataclasses
import logging
from typing import TYPE_CHECKING

from pyiceberg.conversions import from_bytes
from pyiceberg.manifest import DataFileContent, ManifestEntryStatus
from pyiceberg.types import PrimitiveType

from lakeops.zonemap.bloom import BloomFilter
from lakeops.zonemap.entry import ColumnStats, ZonemapEntry

if TYPE_CHECKING:
    from pyiceberg.manifest import DataFile
    from pyiceberg.table import Table

log = logging.getLogger(__name__)


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


def entry_from_metrics(data_file: DataFile, snapshot_id: int, table: Table, columns: tuple[str, ...]) -> ZonemapEntry:
    schema = table.schema()
    stats = {}
    for name in columns:
        field = schema.find_field(name)
        if not isinstance(field.field_type, PrimitiveType):
            continue
        lower = (data_file.lower_bounds or {}).get(field.field_id)
        upper = (data_file.upper_bounds or {}).get(field.field_id)
        stats[field.field_id] = ColumnStats(
            lower=from_bytes(field.field_type, lower) if lower is not None else None,
            upper=from_bytes(field.field_type, upper) if upper is not None else None,
            null_count=(data_file.null_value_counts or {}).get(field.field_id),
        )
    partition = ",".join(str(v) for v in data_file.partition) if data_file.partition else ""
    return ZonemapEntry(data_file.file_path, snapshot_id, data_file.record_count, data_file.file_size_in_bytes,
                        partition, stats)


def entries_for_snapshot(table: Table, snapshot_id: int, columns: tuple[str, ...], bloom_columns: tuple[str, ...]) -> list[ZonemapEntry]:
    """One entry per data file the snapshot added, with Bloom filters for bloom_columns."""
    import pyarrow.parquet as pq

    entries = [entry_from_metrics(f, snapshot_id, table, columns) for f in added_data_files(table, snapshot_id)]
    if not bloom_columns:
        return entries
    schema = table.schema()
    with_blooms = []
    for entry in entries:
        with table.io.new_input(entry.file_path).open() as stream:
            parquet = pq.read_table(stream, columns=list(bloom_columns))
        blooms = {schema.find_field(c).field_id: BloomFilter.build(parquet.column(c).to_pylist()) for c in bloom_columns}
        with_blooms.append(dataclasses.replace(entry, blooms=blooms))
    log.info("zonemap: %d entries for snapshot %s, Bloom filters on %s", len(with_blooms), snapshot_id, list(bloom_columns))
    return with_blooms
