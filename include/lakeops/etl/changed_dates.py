"""The dates on which a source's rows changed since a watermark, from its live files' metadata alone: what an
ETL run recomputes when the watermark snapshot has been expired and the changes since it can no longer be
read as a diff. Pure: the files come as plain values (lakeops.etl.state reads them with pyiceberg).

Every file committed after the watermark has a file sequence number (its commit's) above the watermark
snapshot's: the data files added since, and the delete files whose rows lie in the older data files they apply
to. What the live files cannot show is a data file removed after the watermark (a compaction, a copy-on-write
delete, an overwrite).
When every snapshot committed after the watermark is still kept (most often only older ones were expired), the
manifests they wrote list the files they removed, with their bounds (`removed`); otherwise those files went
with the expired snapshots. The row counts tell whether anything is missing: the source's data files must hold
exactly the watermark's rows, plus those of the files committed since, less those of the removed files that were
there at the watermark. Otherwise, or when a file's time column has no bounds, the answer is why the dates cannot
be known, and the run recomputes in full.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

DATA, POSITION_DELETES, EQUALITY_DELETES = "data", "position_deletes", "equality_deletes"
MAX_CHANGED_DAYS = 366


@dataclass(frozen=True)
class FileFacts:
    """One live file of a source, as its manifest entry describes it."""

    path: str
    content: str
    """data | position_deletes | equality_deletes"""
    sequence_number: int
    records: int
    partition: tuple
    """(spec id, partition values): delete files apply to data files of the same partition"""
    time_bounds: tuple[datetime, datetime] | None = None
    """a data file's lower and upper bound of the source's time column (UTC, naive)"""
    referenced_paths: tuple[str, str] | None = None
    """a position delete file's lower and upper bound of the data file paths it names"""
    file_sequence_number: int | None = None
    """the sequence number of the commit that added the file (a compaction's files keep an older data sequence
    number); None: not recorded (format 1)"""

    @property
    def committed_at(self) -> int:
        return self.file_sequence_number if self.file_sequence_number is not None else self.sequence_number


@dataclass(frozen=True)
class WatermarkFacts:
    """What the source's watermark snapshot was, as the downstream commit recorded it."""

    sequence_number: int
    total_records: int


def _applies_to(delete: FileFacts, data: FileFacts) -> bool:
    """Whether the delete file can remove rows of the data file: an older (position: not newer) file of the same
    partition, or of any partition for an equality delete of an unpartitioned spec; a position delete file only
    to the paths it names."""
    if delete.content == POSITION_DELETES:
        if data.sequence_number > delete.sequence_number or data.partition != delete.partition:
            return False
        return delete.referenced_paths is None or delete.referenced_paths[0] <= data.path <= delete.referenced_paths[1]
    if data.sequence_number >= delete.sequence_number:
        return False
    return data.partition == delete.partition or not delete.partition[1]


def _days(bounds: tuple[datetime, datetime]) -> list[date]:
    first, last = bounds[0].date(), bounds[1].date()
    return [first + timedelta(days=i) for i in range((last - first).days + 1)]


def changed_dates(source: str, time_column: str | None, files: list[FileFacts], mark: WatermarkFacts | None,
                  total_records: int | None, removed: tuple[FileFacts, ...] | None = None) -> tuple[date, ...] | str:
    """The dates of the time column on which source rows were added or deleted after the watermark, or why
    they cannot be known from the live files and, when every snapshot since is kept, the files they removed
    (None: not known)."""
    if mark is None or not mark.sequence_number or total_records is None:
        return (f"the downstream commit recorded no sequence number and row count of source {source}'s watermark "
                f"(written before lakeops recorded them, or a format-1 table)")

    data = [f for f in files if f.content == DATA]
    added = [f for f in data if f.committed_at > mark.sequence_number]
    deletes = [f for f in files if f.content != DATA and f.committed_at > mark.sequence_number]
    gone = [f for f in removed if f.content == DATA] if removed is not None else []
    if not added and not deletes and not gone and total_records == mark.total_records:
        return ()
    there_before = sum(f.records for f in gone if f.committed_at <= mark.sequence_number)
    expected = mark.total_records + sum(f.records for f in added) - there_before
    if total_records != expected:
        if removed is None:
            return (f"source {source}'s data files hold {total_records:,} rows, not the watermark's "
                    f"{mark.total_records:,} plus the {expected - mark.total_records:,} of the files committed since: "
                    f"files were removed or rewritten after the watermark (a compaction, a copy-on-write delete or an "
                    f"overwrite), and the snapshots that removed them were expired too")
        return (f"source {source}'s data files hold {total_records:,} rows, not the watermark's {mark.total_records:,} "
                f"plus the {expected - mark.total_records + there_before:,} of the files committed since, less the "
                f"{there_before:,} of the files removed since: its metadata does not account for every change")
    if time_column is None:
        return f"source {source} changed and has no time_column, so its changes cannot be mapped to dates"
    touched = {f.path: f for f in (*added, *gone)}
    for delete in deletes:
        touched.update((f.path, f) for f in data if _applies_to(delete, f))
    dates: set[date] = set()
    for f in touched.values():
        if f.time_bounds is None:
            return f"data file {f.path} of source {source} has no bounds of {time_column} in its metadata"
        dates.update(_days(f.time_bounds))
        if len(dates) > MAX_CHANGED_DAYS:
            return (f"the files of source {source} changed since the watermark span more than {MAX_CHANGED_DAYS} "
                    f"days of {time_column}")
    return tuple(sorted(dates))
