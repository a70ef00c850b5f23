"""Zonemap-pruned reads with pyiceberg and pyarrow: plan the scan, keep only the candidate files,
read them with pyiceberg's Arrow reader. Position delete files (and deletion vectors) of the kept
files are applied by that reader, so the rows are exactly those of a full scan with the same
filter. pyiceberg cannot apply equality deletes: a table with any is refused with an error naming
the Spark path (lakeops.spark.zonemap_reads), which applies every kind of delete.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyiceberg.expressions import BooleanExpression
from pyiceberg.manifest import DataFileContent

from lakeops.exceptions import ZonemapError
from lakeops.zonemap.candidates import Candidates, candidate_files

if TYPE_CHECKING:
    import pyarrow as pa
    from pyiceberg.table import DataScan, FileScanTask, Table

log = logging.getLogger(__name__)
SPARK_PATH = "lakeops.spark.zonemap_reads.pruned_frame (Spark applies equality deletes)"


@dataclass(frozen=True)
class PrunedRead:
    rows: pa.Table
    files_read: int
    bytes_read: int
    candidates: Candidates


def pruned_tasks(table: Table, predicate: BooleanExpression, snapshot: int | None = None,
                 selected_fields: tuple[str, ...] = ("*",)) -> tuple[list[FileScanTask], Candidates, DataScan]:
    """(scan tasks of the candidate files, the candidates, the scan) for predicate."""
    found = candidate_files(table, predicate, snapshot)
    keep = set(found.files)
    scan = table.scan(row_filter=predicate, snapshot_id=snapshot, selected_fields=selected_fields)
    try:
        tasks = [t for t in scan.plan_files() if t.file.file_path in keep]
    except ValueError as e:
        if "equality deletes" in str(e):
            raise ZonemapError(f"table {table.name()} has equality delete files, which the pyiceberg read path cannot "
                               f"apply; read it with {SPARK_PATH}") from e
        raise
    if any(d.content == DataFileContent.EQUALITY_DELETES for t in tasks for d in t.delete_files):
        raise ZonemapError(f"table {table.name()} has equality delete files, which the pyiceberg read path cannot apply; "
                           f"read it with {SPARK_PATH}")
    return tasks, found, scan


def read_pruned_arrow(table: Table, predicate: BooleanExpression, snapshot: int | None = None,
                      selected_fields: tuple[str, ...] = ("*",)) -> PrunedRead:
    """The rows of table matching predicate, reading only the zonemap's candidate files."""
    from pyiceberg.io.pyarrow import ArrowScan

    tasks, found, scan = pruned_tasks(table, predicate, snapshot, selected_fields)
    rows = ArrowScan(scan.table_metadata, scan.io, scan.projection(), scan.row_filter, scan.case_sensitive,
                     scan.limit).to_table(tasks)
    log.info("zonemap read of %s: %d of %d live files read (%d candidates), %d rows", table.name(), len(tasks),
             found.live_files, len(found.files), rows.num_rows)
    return PrunedRead(rows, len(tasks), sum(t.file.file_size_in_bytes for t in tasks), found)
