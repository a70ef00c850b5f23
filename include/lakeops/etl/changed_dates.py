"""The dates on which a source's rows changed since a watermark, from its live files' metadata alone: what an
ETL run recomputes when the watermark snapshot has been expired and the changes since it can no longer be
read as a diff. Pure: the files come as plain values (lakeops.etl.state reads them with pyiceberg).

Every file committed after the watermark has a data sequence number above the watermark snapshot's: the data
files it added, and the delete files whose rows lie in the older data files they apply to. What those files
cannot show is a data file removed after the watermark (a compaction, a copy-on-write delete, an overwrite):
its metadata went with the expired snapshots. The row counts tell: the source's data files hold exactly the
watermark's rows plus those of the files committed since only when none was removed. Otherwise, or when a
file's time column has no bounds, the answer is why the dates cannot be known, and the run recomputes in full.
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
                  total_records: int | None) -> tuple[date, ...] | str:
    """The dates of the time column on which source rows were added or deleted after the watermark, or why
    they cannot be known from the live files."""
    if mark is None or not mark.sequence_number or total_records is None:
        return (f"the downstream commit recorded no sequence number and row count of source {source}'s watermark "
                f"(written before lakeops recorded them, or a format-1 table)")
    data = [f for f in files if f.content == DATA]
    added = [f for f in data if f.sequence_number > mark.sequence_number]
    deletes = [f for f in files if f.content != DATA and f.sequence_number > mark.sequence_number]
    if not added and not deletes and total_records == mark.total_records:
        return ()
    expected = mark.total_records + sum(f.records for f in added)
    if total_records != expected:
        return (f"source {source}'s data files hold {total_records:,} rows, not the watermark's {mark.total_records:,} "
                f"plus the {expected - mark.total_records:,} of the files committed since: files were removed or "
                f"rewritten after the watermark (a compaction, a copy-on-write delete or an overwrite), and the rows "
                f"they held went with the expired snapshots")
    if time_column is None:
        return f"source {source} changed and has no time_column, so its changes cannot be mapped to dates"
    touched = {f.path: f for f in added}
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
