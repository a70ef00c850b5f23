"""Compute TableHealth from the current snapshot's manifests (each read once) and the snapshot log.

Formulas are documented in lakeops.health.model.
"""

from __future__ import annotations

import logging
import time
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pyiceberg.manifest import DataFileContent, ManifestContent

from lakeops.config import CompactionPolicy
from lakeops.health.manifests import LiveFile, live_files
from lakeops.health.model import PartitionHealth, TableHealth

if TYPE_CHECKING:
    from pyiceberg.manifest import ManifestFile
    from pyiceberg.table import Table

    from lakeops.config import LakeopsConfig

log = logging.getLogger(__name__)
MB = 1024 * 1024
DEFAULT_GROWTH_WINDOW_HOURS = 1.0


@dataclass
class _Group:
    """Files of one (spec id, partition)."""

    data: list[LiveFile] = field(default_factory=list)
    deletes: list[LiveFile] = field(default_factory=list)
    pairs: int = 0
    pair_bytes: int = 0
    dangling: set[str] = field(default_factory=set)
    """Paths of the group's delete files that apply to no live data file."""


def _applying(delete: LiveFile, data_seqs: list[int], data: list[LiveFile], by_path: dict[str, LiveFile]) -> int:
    """How many of the group's data files (sorted by sequence number) `delete` applies to."""
    if delete.referenced_data_file is not None:
        target = by_path.get(delete.referenced_data_file)
        return int(target is not None and target.sequence_number <= delete.sequence_number)
    if delete.content == DataFileContent.EQUALITY_DELETES:
        return bisect_left(data_seqs, delete.sequence_number)
    upto = bisect_right(data_seqs, delete.sequence_number)
    if delete.path_lower is None or delete.path_upper is None:
        return upto
    lower, upper = delete.path_lower, delete.path_upper
    return sum(1 for f in data[:upto] if lower <= f.path <= upper)


def _pair(group: _Group, global_equality: list[LiveFile]) -> None:
    """Count the group's (data file, applying delete file) pairs and its dangling delete files."""
    group.data.sort(key=lambda f: f.sequence_number)
    seqs = [f.sequence_number for f in group.data]
    by_path = {f.path: f for f in group.data}
    for delete in [d for d in group.deletes if d not in global_equality] + global_equality:
        n = _applying(delete, seqs, group.data, by_path)
        group.pairs += n
        group.pair_bytes += n * delete.size_bytes
        # Equality deletes are never called dangling: a global one applies across partitions.
        if not n and delete.content != DataFileContent.EQUALITY_DELETES:
            group.dangling.add(delete.path)


def _grouped(table: Table, manifests: list[ManifestFile]) -> dict[tuple[int, object], _Group]:
    """The live files of `manifests` by (spec id, partition), paired with the delete files that apply."""
    groups: dict[tuple[int, object], _Group] = defaultdict(_Group)
    global_equality: list[LiveFile] = []
    specs = table.metadata.specs()
    for f in live_files(table.io, manifests):
        if f.content == DataFileContent.DATA:
            groups[(f.spec_id, f.partition)].data.append(f)
        else:
            groups[(f.spec_id, f.partition)].deletes.append(f)
            if f.content == DataFileContent.EQUALITY_DELETES and specs[f.spec_id].is_unpartitioned():
                global_equality.append(f)
    for group in groups.values():
        _pair(group, global_equality)
    return groups


def dangling_delete_paths(table: Table) -> tuple[int | None, frozenset[str]]:
    """(snapshot id, paths of its delete files that apply to no live data file): the files health
    counts as dangling (lakeops.health.model). Reads the manifest list and each manifest once."""
    snapshot = table.current_snapshot()
    if snapshot is None:
        return None, frozenset()
    groups = _grouped(table, list(snapshot.manifests(table.io)))
    return snapshot.snapshot_id, frozenset(path for group in groups.values() for path in group.dangling)


@dataclass
class _Totals:
    data_files: int = 0
    data_records: int = 0
    data_bytes: int = 0
    small_files: int = 0
    small_file_bytes: int = 0
    position_delete_files: int = 0
    equality_delete_files: int = 0
    deletion_vectors: int = 0
    delete_records: int = 0
    delete_bytes: int = 0
    deleted_rows: int = 0
    pairs: int = 0
    pair_bytes: int = 0
    live_bytes: float = 0.0
    recent_delete_files: int = 0
    recent_delete_bytes: int = 0
    dangling_delete_files: int = 0
    dangling_delete_records: int = 0
    equality_delete_records: int = 0

    def add(self, other: _Totals) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def delete_files(self) -> int:
        return self.position_delete_files + self.equality_delete_files + self.deletion_vectors

    def read_amp_files(self) -> float:
        return (self.data_files + self.pairs) / self.data_files if self.data_files else 1.0

    def read_amp_bytes(self) -> float:
        if not self.data_bytes:
            return 1.0
        return (self.data_bytes + self.pair_bytes) / max(self.live_bytes, 1.0)


def _totals(group: _Group, small_threshold: int, window_start_ms: int, commit_ms: dict[int, int]) -> _Totals:
    t = _Totals()
    for f in group.data:
        t.data_files += 1
        t.data_records += f.records
        t.data_bytes += f.size_bytes
        if f.size_bytes < small_threshold:
            t.small_files += 1
            t.small_file_bytes += f.size_bytes
    for d in group.deletes:
        if d.is_deletion_vector:
            t.deletion_vectors += 1
        elif d.content == DataFileContent.EQUALITY_DELETES:
            t.equality_delete_files += 1
            t.equality_delete_records += d.records
        else:
            t.position_delete_files += 1
        t.delete_records += d.records
        t.delete_bytes += d.size_bytes
        if d.path in group.dangling:
            t.dangling_delete_files += 1
            t.dangling_delete_records += d.records
        elif commit_ms.get(d.snapshot_id or -1, -1) >= window_start_ms:
            t.recent_delete_files += 1
            t.recent_delete_bytes += d.size_bytes
    t.deleted_rows = min(t.delete_records - t.dangling_delete_records, t.data_records)
    t.live_bytes = t.data_bytes * (1 - t.deleted_rows / t.data_records) if t.data_records else 0.0
    t.pairs, t.pair_bytes = group.pairs, group.pair_bytes
    return t


def _figures(t: _Totals, hours: float) -> dict[str, object]:
    return {
        "data_files": t.data_files, "data_records": t.data_records, "data_bytes": t.data_bytes,
        "small_files": t.small_files, "small_file_bytes": t.small_file_bytes,
        "avg_file_size_bytes": t.data_bytes / t.data_files if t.data_files else 0.0,
        "position_delete_files": t.position_delete_files, "equality_delete_files": t.equality_delete_files,
        "deletion_vectors": t.deletion_vectors, "delete_files": t.delete_files,
        "delete_records": t.delete_records, "delete_bytes": t.delete_bytes,
        "delete_files_per_data_file": t.delete_files / t.data_files if t.data_files else float(t.delete_files),
        "read_amp_files": t.read_amp_files(), "read_amp_bytes": t.read_amp_bytes(),
        "delete_files_added_per_hour": t.recent_delete_files / hours,
        "delete_bytes_added_per_hour": t.recent_delete_bytes / hours,
        "dangling_delete_files": t.dangling_delete_files, "dangling_delete_records": t.dangling_delete_records,
        "equality_delete_records": t.equality_delete_records,
    }


def compute_health(table: Table, policy: CompactionPolicy | None = None, *, now_ms: int | None = None,
                   growth_window_hours: float = DEFAULT_GROWTH_WINDOW_HOURS) -> TableHealth:
    """Health of `table`'s current snapshot. Reads the manifest list and each manifest once."""
    if growth_window_hours <= 0:
        raise ValueError(f"growth_window_hours: {growth_window_hours} must be positive, e.g. 1.0")
    policy = policy or CompactionPolicy()
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    metadata = table.metadata
    target = policy.target_file_size_mb * MB
    small_threshold = int(target * policy.small_file_fraction)
    snapshot = table.current_snapshot()
    commit_ms = {s.snapshot_id: s.timestamp_ms for s in metadata.snapshots}
    window_start_ms = now_ms - int(growth_window_hours * 3600 * 1000)

    manifests = list(snapshot.manifests(table.io)) if snapshot else []
    groups = _grouped(table, manifests)
    specs = metadata.specs()
    schema = table.schema()
    partitions = []
    total = _Totals()
    for (spec_id, record), group in groups.items():
        spec = specs[spec_id]
        t = _totals(group, small_threshold, window_start_ms, commit_ms)
        total.add(t)
        times = [commit_ms[f.snapshot_id] for f in group.data + group.deletes if f.snapshot_id in commit_ms]
        partitions.append(PartitionHealth(
            partition=spec.partition_to_path(record, schema) if spec.fields else "",  # type: ignore[arg-type]
            spec_id=spec_id,
            partition_values=tuple((pf.name, record[i]) for i, pf in enumerate(spec.fields)),  # type: ignore[index]
            partition_sources=tuple((schema.find_column_name(pf.source_id) or "", str(pf.transform)) for pf in spec.fields),
            last_commit_ms=max(times) if times else None,
            **_figures(t, growth_window_hours),  # type: ignore[arg-type]
        ))
    partitions.sort(key=lambda p: (p.spec_id, p.partition))
    last_commit_ms = snapshot.timestamp_ms if snapshot else None
    health = TableHealth(
        table=".".join(table.name()),
        evaluated_at_ms=now_ms,
        snapshot_id=snapshot.snapshot_id if snapshot else None,
        format_version=metadata.format_version,
        target_file_size_bytes=target,
        small_file_threshold_bytes=small_threshold,
        growth_window_hours=growth_window_hours,
        snapshots=len(metadata.snapshots),
        data_manifests=sum(1 for m in manifests if m.content == ManifestContent.DATA),
        delete_manifests=sum(1 for m in manifests if m.content == ManifestContent.DELETES),
        last_commit_ms=last_commit_ms,
        last_commit_age_s=(now_ms - last_commit_ms) / 1000 if last_commit_ms is not None else None,
        partitions=tuple(partitions),
        **_figures(total, growth_window_hours),  # type: ignore[arg-type]
    )
    log.info("health of %s: %d data files (%d small), %d delete files, read amplification %.2f files / %.2f bytes, "
             "%d manifests read", health.table, health.data_files, health.small_files, health.delete_files, health.read_amp_files,
             health.read_amp_bytes, len(manifests))
    return health


def table_health(config: LakeopsConfig, table: str, *, now_ms: int | None = None,
                 growth_window_hours: float = DEFAULT_GROWTH_WINDOW_HOURS) -> TableHealth:
    """Health of a maintained table, with its effective compaction policy's file-size targets."""
    from lakeops.catalog import load_catalog
    from lakeops.tables.effective import load_effective

    spec, loaded = load_effective(config, load_catalog(config.catalog), table)
    return compute_health(loaded, spec.compaction, now_ms=now_ms, growth_window_hours=growth_window_hours)
