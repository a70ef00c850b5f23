"""Zonemap-pruned reads with pyiceberg and pyarrow: the candidate files read by pyiceberg's Arrow reader.
Their scan tasks are built from the index alone when the snapshot has no delete file and one partition
spec (lakeops.zonemap.read_plan.index_files: no manifest is read); otherwise pyiceberg plans the scan
and only the candidates' tasks are kept, with their position delete files (and deletion vectors),
which the reader applies: the rows are exactly those of a full scan with the same filter. pyiceberg
cannot apply equality deletes: a table with any is refused with an error naming the Spark path
(lakeops.spark.zonemap_reads), which applies every kind of delete.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyiceberg.expressions import BooleanExpression
from pyiceberg.manifest import DataFileContent

from lakeops.exceptions import ZonemapError
from lakeops.zonemap.candidates import Candidates, candidate_files
from lakeops.zonemap.read_plan import ARROW_MAX_BYTES, ReadPlan, StagedFile, index_files, plan_spark_read

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


def field_types(table: Table) -> list[str]:
    """The result types of the table's partition fields, in spec order."""
    schema = table.schema()
    return [str(f.field_type) for f in table.spec().partition_type(schema).fields]


def has_deletes(table: Table, snapshot: int | None) -> bool:
    """Whether the snapshot (default: the current one) may hold a delete file, from its summary (the
    totals are optional in the spec: a summary without them may)."""
    found = table.snapshot_by_id(snapshot) if snapshot is not None else table.current_snapshot()
    if found is None:
        return False
    summary = found.summary
    if summary is None or "total-delete-files" not in summary:
        return True
    return any(int(summary.get(key) or 0) for key in ("total-delete-files", "total-position-deletes", "total-equality-deletes"))


def read_plan(table: Table, found: Candidates, snapshot: int | None, arrow_max_bytes: int = ARROW_MAX_BYTES) -> ReadPlan:
    """How a Spark read of the candidates runs (lakeops.zonemap.read_plan)."""
    return plan_spark_read(found.files, found.minmax_files, found.sizes, found.record_counts, found.partitions,
                           field_types(table), has_deletes(table, snapshot), len(table.specs()), arrow_max_bytes)


def index_tasks(table: Table, files: tuple[StagedFile, ...]) -> list[FileScanTask]:
    """pyiceberg scan tasks of files (built from the index: no delete files, the table's one spec)."""
    from pyiceberg.manifest import DataFile, FileFormat
    from pyiceberg.table import FileScanTask
    from pyiceberg.typedef import Record

    spec_id = table.spec().spec_id
    tasks = []
    for f in files:
        data_file = DataFile.from_args(content=DataFileContent.DATA, file_path=f.path, file_format=FileFormat.PARQUET,
                                       partition=Record(*f.values), record_count=f.records, file_size_in_bytes=f.size)
        data_file.spec_id = spec_id
        tasks.append(FileScanTask(data_file))
    return tasks


def arrow_rows(scan: DataScan, tasks: list[FileScanTask]) -> pa.Table:
    """The rows of tasks matching scan's filter, projected to its columns, by pyiceberg's Arrow reader."""
    from pyiceberg.io.pyarrow import ArrowScan

    return ArrowScan(scan.table_metadata, scan.io, scan.projection(), scan.row_filter, scan.case_sensitive,
                     scan.limit).to_table(tasks)


def pruned_tasks(table: Table, predicate: BooleanExpression, snapshot: int | None = None,
                 selected_fields: tuple[str, ...] = ("*",),
                 found: Candidates | None = None) -> tuple[list[FileScanTask], Candidates, DataScan]:
    """(scan tasks of the candidate files, the candidates, the scan) for predicate: built from the index
    when it can (no planning), else the candidates' tasks of pyiceberg's plan. found: the candidates,
    when the caller has them already."""
    found = found if found is not None else candidate_files(table, predicate, snapshot)
    keep = set(found.files)
    scan = table.scan(row_filter=predicate, snapshot_id=snapshot, selected_fields=selected_fields)
    built = index_files(found.files, found.sizes, found.record_counts, found.partitions, field_types(table),
                        has_deletes(table, snapshot), len(table.specs()))
    if not isinstance(built, str):
        return index_tasks(table, built), found, scan
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
                      selected_fields: tuple[str, ...] = ("*",), found: Candidates | None = None) -> PrunedRead:
    """The rows of table matching predicate, reading only the zonemap's candidate files (found: the
    candidates, when the caller has them already)."""
    tasks, found, scan = pruned_tasks(table, predicate, snapshot, selected_fields, found)
    rows = arrow_rows(scan, tasks)
    log.info("zonemap read of %s: %d of %d live files read (%d candidates), %d rows", table.name(), len(tasks),
             found.live_files, len(found.files), rows.num_rows)
    return PrunedRead(rows, len(tasks), sum(t.file.file_size_in_bytes for t in tasks), found)
