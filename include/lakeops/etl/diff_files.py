"""Which data files a snapshot diff of a changelog source reads (lakeops.spark.etl_changes), and how many bytes
that is, from metadata alone: the files live at one snapshot and not the other, and those live at both whose
delete files differ. pyiceberg plans both snapshots (manifests only, no JVM): a run whose changes touched most of
the source turns into a full recompute before Spark plans anything, and otherwise the JVM fetches only the tasks
of the files named here instead of telling every file's delete files apart through py4j."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyiceberg.table import Table

log = logging.getLogger(__name__)


def changed_files(before: Mapping[str, frozenset[str]], after: Mapping[str, frozenset[str]]) -> tuple[list[str], list[str]]:
    """The files to read at each snapshot, given each live data file's delete files there (path -> their
    identities): those live at only one of them, and those whose deletes differ."""
    touched = [p for p in before if p in after and before[p] != after[p]]
    return ([p for p in before if p not in after] + touched), ([p for p in after if p not in before] + touched)


def _live_files(table: Table, snapshot_id: int) -> tuple[dict[str, frozenset[str]], dict[str, int]]:
    """(path -> paths of its delete files, path -> bytes) of every live data file at the snapshot. Raises ValueError
    for deletes pyiceberg does not match to data files: equality deletes (its planning refuses them) and deletion
    vectors (Puffin blobs it would apply to every file of their partition)."""
    from pyiceberg.manifest import FileFormat

    deletes: dict[str, frozenset[str]] = {}
    sizes: dict[str, int] = {}
    for task in table.scan(snapshot_id=snapshot_id).plan_files():
        if any(d.file_format == FileFormat.PUFFIN for d in task.delete_files):
            raise ValueError("deletion vectors")
        deletes[task.file.file_path] = frozenset(d.file_path for d in task.delete_files)
        sizes[task.file.file_path] = task.file.file_size_in_bytes
    return deletes, sizes


@dataclass(frozen=True)
class DiffFiles:
    """A diff's data files, as pyiceberg plans both snapshots: those it reads at each, their bytes, and how many
    files are live at each."""

    read_start: list[str]
    read_end: list[str]
    read_bytes: int
    """both snapshots counted"""
    live_start: int
    live_end: int


def diff_files(table: Table, start: int, end: int) -> DiffFiles | None:
    """The data files a diff of table between snapshots start and end reads; None when pyiceberg cannot match its
    delete files to data files (equality deletes, deletion vectors) or read its manifests: Iceberg's Java planning
    finds those."""
    try:
        before, before_sizes = _live_files(table, start)
        after, after_sizes = _live_files(table, end)
    except ValueError as e:
        log.info("the changed files of %s between %d and %d are left to Iceberg's own planning (%s)",
                 ".".join(table.name()), start, end, e)
        return None
    except OSError as e:
        log.warning("pyiceberg could not read the manifests of %s (%s: %s); Iceberg's Java planning finds the changed "
                    "files instead. Check the storage settings of the catalog lakeops reads with pyiceberg",
                    ".".join(table.name()), type(e).__name__, e)
        return None
    read_start, read_end = changed_files(before, after)
    read_bytes = sum(before_sizes[p] for p in read_start) + sum(after_sizes[p] for p in read_end)
    return DiffFiles(read_start, read_end, read_bytes, len(before), len(after))
