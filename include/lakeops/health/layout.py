"""How far a table's file layout is from a compacted one: pure functions of health figures.

* scan files: the files a full scan of a partition opens, data files plus the delete files that
  apply to them (read_amp_files x data files);
* compacted files: the files a compacted copy of the partition would hold, its live bytes over
  the target file size, at least one (live bytes = data bytes x (1 - deleted rows / rows), the
  deleted rows those of the delete files a reader applies);
* excess files: scan files - compacted files, what a rewrite of the partition saves every scan;
* file amplification of a table: sum of scan files / sum of compacted files over its partitions,
  1.0 for a freshly compacted table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from lakeops.health.model import FileFigures


def scan_files(f: FileFigures) -> int:
    return round(f.read_amp_files * f.data_files)


def compacted_files(f: FileFigures, target_bytes: int) -> int:
    if not f.data_files or f.applied_delete_records >= f.data_records > 0:
        return 0
    deleted = min(f.applied_delete_records, f.data_records) / f.data_records if f.data_records else 0.0
    return max(1, math.ceil(f.data_bytes * (1 - deleted) / target_bytes))


def excess_files(f: FileFigures, target_bytes: int) -> int:
    return max(0, scan_files(f) - compacted_files(f, target_bytes))


def table_layout(partitions: Iterable[FileFigures], target_bytes: int) -> tuple[int, int]:
    """(files a full scan opens, files a compacted copy would hold) over the partitions."""
    scanned = compacted = 0
    for p in partitions:
        scanned += scan_files(p)
        compacted += compacted_files(p, target_bytes)
    return scanned, compacted


def file_amplification(partitions: Iterable[FileFigures], target_bytes: int) -> float:
    scanned, compacted = table_layout(partitions, target_bytes)
    return scanned / compacted if compacted else 1.0


def over_file_amplification(partitions: Iterable[FileFigures], target_bytes: int, max_amplification: float,
                            min_excess: int) -> tuple[int, int] | None:
    """(scanned, compacted) when a full scan opens at least max_amplification times the files of
    a compacted copy and at least min_excess files more (a small table is not worth a rewrite
    for a handful of files); else None."""
    scanned, compacted = table_layout(partitions, target_bytes)
    if compacted and scanned >= max_amplification * compacted and scanned - compacted >= min_excess:
        return scanned, compacted
    return None
