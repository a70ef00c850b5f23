"""What changed in a source between two of its snapshots, as a relation: the changed rows with a change-type
column `_change_type` (insert, update_before, update_after, delete).

An append-only source's changes are the rows its appends added: one snapshot-range read of the appended files.
A changelog source (updates and deletes, merge-on-read included) is compared at the two snapshots: Iceberg's
changelog scan refuses delete files (position deletes, equality deletes and deletion vectors alike), while a
read at a snapshot applies them, so the difference of the two reads is right whatever the write mode. Only the
changed files are read, known from metadata: the data files live at one snapshot and not the other, and those
live at both whose delete files differ; a file with the same deletes at both yields the same rows on each side,
which the (multiset) difference would cancel anyway. It is a net change: several changes of one key between
the snapshots are one change, a row added and deleted in the range is none. An incremental run, which needs only
the changed values, reads the cheaper superset changed_rows() gives instead."""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lakeops.etl.diff_files import DiffFiles, changed_files
from lakeops.spark.scan_tasks import StagedReads, java_table, planned_files, tasks_of

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger(__name__)
CHANGE_TYPE = "_change_type"
CHANGE_TYPES = ("insert", "update_before", "update_after", "delete")
ADDED = "_lakeops_added"
POSITION = ("_file", "_pos")
"""Iceberg's metadata columns that name a row's place: its data file and its position in it."""


def appended(spark: SparkSession, table: str, start: int | None, end: int) -> DataFrame:
    """The rows the appends after `start` up to `end` added (start None: from the first snapshot)."""
    from pyspark.sql import functions as F

    reader = spark.read.option("end-snapshot-id", str(end))
    if start is not None:
        reader = reader.option("start-snapshot-id", str(start))
    else:
        reader = spark.read.option("versionAsOf", str(end))
    return reader.table(table).withColumn(CHANGE_TYPE, F.lit("insert"))


@dataclass(frozen=True)
class ChangedFiles:
    """A changelog source's files between two snapshots that the difference reads, with their scan tasks as Iceberg
    plans them (manifests only), and how many files are live at each snapshot."""

    read_start: dict[str, Any]
    """path -> scan task (delete files included) of each file read at the first snapshot"""
    read_end: dict[str, Any]
    live_start: int
    live_end: int
    read_bytes: int
    """data file bytes read, both snapshots together"""


def changed_between(staged: StagedReads, start: int, end: int, known: DiffFiles | None = None) -> ChangedFiles:
    """The files of staged's table the difference of snapshots `start` and `end` reads. known: those files as
    pyiceberg found them (lakeops.etl.diff_files), when it could: the JVM then fetches only their tasks."""
    if known is not None:
        read_start = tasks_of(staged.jtable, start, set(known.read_start))
        read_end = tasks_of(staged.jtable, end, set(known.read_end))
        if len(read_start) == len(known.read_start) and len(read_end) == len(known.read_end):
            return ChangedFiles(read_start, read_end, known.live_start, known.live_end, known.read_bytes)
        log.warning("pyiceberg and Iceberg's Java planning list other files between snapshots %d and %d; the Java "
                    "planning decides", start, end)
    at_start, at_end = planned_files(staged.jtable, start), planned_files(staged.jtable, end)
    paths_start, paths_end = changed_files({p: f.deletes for p, f in at_start.items()},
                                           {p: f.deletes for p, f in at_end.items()})
    read_bytes = (sum(int(at_start[p].task.file().fileSizeInBytes()) for p in paths_start)
                  + sum(int(at_end[p].task.file().fileSizeInBytes()) for p in paths_end))
    return ChangedFiles({p: at_start[p].task for p in paths_start}, {p: at_end[p].task for p in paths_end},
                        len(at_start), len(at_end), read_bytes)


def changelog(spark: SparkSession, table: str, start: int | None, end: int, key: tuple[str, ...] = (),
              staged: StagedReads | None = None, changed: ChangedFiles | None = None) -> DataFrame:
    """The net changes of `table` from snapshot `start` (exclusive; None: empty) to `end`. With `key`, a key
    removed and added again is an update (update_before, update_after); without, a delete and an insert.
    The changed files are read through `staged` (released by the caller once the frame is no longer read;
    None: a StagedReads of its own, never released, for a caller that reads the frame once in a session);
    `changed`: those files, when the caller has planned them already (changed_between on the same staged)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    if start is None:
        return spark.read.option("versionAsOf", str(end)).table(table).withColumn(CHANGE_TYPE, F.lit("insert"))
    staged = staged or StagedReads(spark, table, java_table(spark, table))
    changed = changed or changed_between(staged, start, end)
    log.info("changes of %s between snapshots %d and %d: %d of %d files read at the first, %d of %d at the second",
             table, start, end, len(changed.read_start), changed.live_start, len(changed.read_end), changed.live_end)
    before = staged.read(list(changed.read_start.values()))
    after = staged.read(list(changed.read_end.values()))
    changes = net_changes(before, after)
    added = F.col(ADDED)
    if not key:
        return changes.withColumn(CHANGE_TYPE, F.when(added, "insert").otherwise("delete")).drop(ADDED)
    # A key with a row removed and a row added between the snapshots was updated.
    by_key = Window.partitionBy(*key)
    updated = F.max(added).over(by_key) != F.min(added).over(by_key)
    kind = F.when(updated & added, "update_after").when(updated, "update_before").when(added, "insert").otherwise("delete")
    return changes.withColumn(CHANGE_TYPE, kind).drop(ADDED)


def changed_rows(staged: StagedReads, table: str, start: int, end: int, changed: ChangedFiles) -> DataFrame:
    """The rows the difference of snapshots `start` and `end` touches, in the table's columns, without a change
    type: what an incremental run needs to know which values changed. In a data file live at both snapshots, the
    rows at positions live at one of them only: a data file never changes, only the deletes applied to it, so
    those rows are told apart by position, and Spark reads no column the caller does not select. Of the files
    live at one snapshot only, their net change (a compaction's rewrite cancels out), or every row when only one
    snapshot has such files. This is a superset of the net change's rows (a row deleted at its position and
    written again unchanged elsewhere is in it), which only widens a recompute; changelog() gives the net change.
    On a format 3 table a row's place is its row id (_row_identity), and a file without the same row ids at both
    snapshots (written before the table's upgrade to format 3) is compared by content."""
    from pyspark.sql import functions as F

    log.info("changes of %s between snapshots %d and %d: %d of %d files read at the first, %d of %d at the second",
             table, start, end, len(changed.read_start), changed.live_start, len(changed.read_end), changed.live_end)
    identity = _row_identity(staged)
    both = {p for p in changed.read_start if p in changed.read_end
            and (identity == POSITION or _same_row_ids(changed.read_start[p], changed.read_end[p]))}
    removed = [t for p, t in changed.read_start.items() if p not in both]
    added = [t for p, t in changed.read_end.items() if p not in both]
    parts = []
    if removed and added:
        parts.append(net_changes(staged.read(removed), staged.read(added)).drop(ADDED))
    elif removed or added:
        parts.append(staged.read(removed or added))
    if both:
        side = "_lakeops_side"
        before = staged.read([changed.read_start[p] for p in both], metadata=identity)
        after = staged.read([changed.read_end[p] for p in both], metadata=identity)
        columns = [c for c in after.columns if c not in identity]
        tagged = before.withColumn(side, F.lit(-1)).unionByName(after.withColumn(side, F.lit(1)))
        moved = tagged.groupBy(*identity).agg(F.sum(side).alias(side), *[F.first(c).alias(c) for c in columns])
        parts.append(moved.where(F.col(side) != 0).select(*columns))
    if not parts:
        return staged.read([])
    return functools.reduce(lambda a, b: a.unionByName(b), parts)


def _row_identity(staged: StagedReads) -> tuple[str, ...]:
    """The columns that name a row's place in the staged reads: `_file` and `_pos`; on a format 3 table its row id,
    since Iceberg 1.11's staged read there was seen not to resolve `_file` (its relation carries the row-lineage
    columns as data columns instead). A row id names one live row at a snapshot (an update's new version keeps
    it, in another file, while the old one is deleted), so among the files live at both snapshots a row id whose
    liveness differs is a changed row, as a position is."""
    return POSITION if int(staged.jtable.operations().current().formatVersion()) < 3 else ("_row_id",)


def _same_row_ids(before: Any, after: Any) -> bool:
    """Whether a file's scan tasks at two snapshots give its rows the same row ids: it has a first row id at both,
    the same (a file written before a table's upgrade to format 3 gets one only once a later commit assigns it)."""
    first, last = before.file().firstRowId(), after.file().firstRowId()
    return first is not None and last is not None and int(first) == int(last)


def net_changes(before: DataFrame, after: DataFrame) -> DataFrame:
    """The multiset difference of two reads in one pass: each row once per copy it gained (ADDED true) or lost
    (false). Rows are compared on every column; a map column (which Spark cannot group on) by its sorted entries."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import MapType

    count = "_lakeops_count"
    maps = {f.name for f in after.schema.fields if isinstance(f.dataType, MapType)}
    columns = after.columns
    comparable = [F.array_sort(F.map_entries(c)).alias(c) if c in maps else F.col(c) for c in columns]
    tagged = (before.select(*comparable, F.lit(-1).alias(count))
              .unionByName(after.select(*comparable, F.lit(1).alias(count))))
    net = tagged.groupBy(*columns).agg(F.sum(count).alias(count)).where(F.col(count) != 0)
    copies = net.select("*", F.explode(F.array_repeat(F.col(count) > 0, F.abs(F.col(count)).cast("int"))).alias(ADDED))
    return copies.select(*[F.map_from_entries(c).alias(c) if c in maps else F.col(c) for c in columns], ADDED)
