"""Health figures of one table and of each of its partitions: plain values, cheap to serialize.

Read amplification (what a full scan pays for the deletes not yet compacted away):

* read_amp_files = (data files + Σ over data files of the delete files that apply to it) / data files.
  1.0 on a clean table. A delete file applies to a data file when a reader must open it to read
  that data file: a deletion vector or a file-scoped position delete file applies to the one
  data file it names; a partition-scoped position delete file to every data file of its
  partition with a data sequence number <= its own; an equality delete file to every data file
  of its partition (of the whole table when written unpartitioned) with a smaller one.
  1,000 data files under 1,000 partition-scoped delete files give ~1,001.
* read_amp_bytes = (data bytes + Σ over (data file, applying delete) pairs of the delete bytes) /
  live bytes, where live bytes = data bytes × (1 − deleted rows / data rows), deleted rows being
  the rows position deletes and deletion vectors mark plus one row per equality-delete key (an
  estimate: metadata cannot tell how many rows a key matches). A deletion vector counts its blob
  (content_size_in_bytes), not the whole Puffin file. 1.0 when clean; 1/(1 − 0.3) ≈ 1.43 when
  30% of the rows are deleted.

Dangling delete files are position delete files and deletion vectors that apply to no live data
file (their data files were rewritten under a newer sequence number, or are gone): readers skip
them, so they add nothing to read amplification, and the deleted-row figures leave them out. They
stay in the table's delete manifests until a clean-up drops them (see
CompactionPolicy.max_dangling_delete_files).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class FileFigures:
    """Figures shared by a partition and a whole table."""

    data_files: int
    data_records: int
    data_bytes: int
    small_files: int
    small_file_bytes: int
    avg_file_size_bytes: float
    position_delete_files: int
    equality_delete_files: int
    deletion_vectors: int
    delete_files: int
    delete_records: int
    delete_bytes: int
    delete_files_per_data_file: float
    read_amp_files: float
    read_amp_bytes: float
    delete_files_added_per_hour: float
    """Live delete files (of all kinds) committed during the growth window, per hour; dangling ones
    are left out, so the figure falls back once a rewrite applied them."""
    delete_bytes_added_per_hour: float
    dangling_delete_files: int
    """Delete files (included in delete_files) that apply to no live data file."""
    dangling_delete_records: int
    """Their records (included in delete_records)."""
    equality_delete_records: int = field(default=0, kw_only=True)
    """Records of the equality delete files (included in delete_records; never dangling): one per deleted key.
    Keyword-only with a default, so figures stored before it existed still read."""

    @property
    def applied_delete_files(self) -> int:
        """Delete files a reader applies: delete_files less the dangling ones."""
        return self.delete_files - self.dangling_delete_files

    @property
    def applied_delete_records(self) -> int:
        return self.delete_records - self.dangling_delete_records

    @property
    def applied_position_delete_records(self) -> int:
        """Rows marked deleted by the position delete files and deletion vectors a reader applies."""
        return self.applied_delete_records - (self.equality_delete_records or 0)


@dataclass(frozen=True)
class PartitionHealth(FileFigures):
    partition: str
    """Partition path as Iceberg writes it ('created_at_day=2026-11-21'); '' when unpartitioned."""
    spec_id: int
    partition_values: tuple[tuple[str, Any], ...]
    """(partition field name, raw partition value) pairs, e.g. (('created_at_day', 20413),)."""
    last_commit_ms: int | None
    """Commit time of the newest live file in the partition."""
    partition_sources: tuple[tuple[str, str], ...] = ()
    """(source column, transform) of each partition field, aligned with partition_values, e.g.
    (('created_at', 'day'),): what a predicate selecting the partition is written on."""


@dataclass(frozen=True)
class TableHealth(FileFigures):
    table: str
    evaluated_at_ms: int
    snapshot_id: int | None
    format_version: int
    target_file_size_bytes: int
    small_file_threshold_bytes: int
    growth_window_hours: float
    snapshots: int
    data_manifests: int
    delete_manifests: int
    last_commit_ms: int | None
    last_commit_age_s: float | None
    partitions: tuple[PartitionHealth, ...]

    @property
    def manifests(self) -> int:
        return self.data_manifests + self.delete_manifests

    def partition(self, path: str) -> PartitionHealth:
        for found in self.partitions:
            if found.partition == path:
                return found
        raise KeyError(f"partition {path!r} is not in table {self.table}; partitions: {[p.partition for p in self.partitions]}")
