"""The live entries of a snapshot's manifests, read once with pyiceberg's Avro reader.

pyiceberg's own ManifestFile.fetch_manifest_entry reads with the v2 schema, which drops the v3
fields that say which data file a deletion vector belongs to (referenced_data_file and the blob's
content offset and size). Reading with the v3 schema keeps them; v1/v2 manifests read the same
(the missing optional fields come back empty).

A manifest never changes once written, so the live files read from one are kept in a bounded
in-process cache (MANIFEST_CACHE_FILES files, least recently used out first): a process that
evaluates a table again and again (a deferrable sensor's trigger in the triggerer, a sensor in
poke mode, a compaction run's before and after) reads only the manifests new since.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyiceberg.avro.file import AvroFile
from pyiceberg.manifest import (
    INITIAL_SEQUENCE_NUMBER,
    MANIFEST_ENTRY_SCHEMAS,
    DataFile,
    DataFileContent,
    FileFormat,
    ManifestEntry,
    ManifestEntryStatus,
    _inherit_from_manifest,
)
from pyiceberg.utils.concurrent import ExecutorFactory

if TYPE_CHECKING:
    from pyiceberg.io import FileIO
    from pyiceberg.manifest import ManifestFile
    from pyiceberg.typedef import Record

# Field ids of the v3 data_file struct (Iceberg spec) and of a position delete file's file_path column.
_REFERENCED_DATA_FILE = 143
_CONTENT_SIZE = 145
PATH_FIELD_ID = 2147483546


@dataclass(frozen=True)
class LiveFile:
    """One live data or delete file, reduced to what health needs."""

    content: DataFileContent
    file_format: FileFormat
    path: str
    spec_id: int
    partition: Record
    records: int
    size_bytes: int
    """Bytes a reader reads for it: the file, or for a deletion vector its blob only."""
    sequence_number: int
    snapshot_id: int | None
    referenced_data_file: str | None
    """The one data file a deletion vector or a file-scoped position delete file applies to."""
    path_lower: str | None
    path_upper: str | None

    @property
    def is_deletion_vector(self) -> bool:
        return self.content == DataFileContent.POSITION_DELETES and self.file_format == FileFormat.PUFFIN


_V3_POSITIONS = {f.field_id: i for i, f in enumerate(MANIFEST_ENTRY_SCHEMAS[3].find_field(2).field_type.fields)}  # type: ignore[attr-defined]


def _field(data_file: DataFile, field_id: int) -> object:
    position = _V3_POSITIONS[field_id]
    return data_file._data[position] if position < len(data_file._data) else None


def _path_bound(bounds: dict[int, bytes] | None) -> str | None:
    value = (bounds or {}).get(PATH_FIELD_ID)
    if value is None:
        return None
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return None


def live_file(entry: ManifestEntry) -> LiveFile:
    """What health needs of one manifest entry (read with the v3 schema, live_entries)."""
    data_file = entry.data_file
    referenced = _field(data_file, _REFERENCED_DATA_FILE)
    lower, upper = _path_bound(data_file.lower_bounds), _path_bound(data_file.upper_bounds)
    if referenced is None and lower is not None and lower == upper:
        referenced = lower  # a v2 file-scoped position delete file: its path bounds name one file
    size = data_file.file_size_in_bytes
    if data_file.file_format == FileFormat.PUFFIN:
        size = int(_field(data_file, _CONTENT_SIZE) or size)  # type: ignore[call-overload]
    return LiveFile(
        content=data_file.content,
        file_format=data_file.file_format,
        path=data_file.file_path,
        spec_id=data_file.spec_id,
        partition=data_file.partition,
        records=data_file.record_count,
        size_bytes=size,
        sequence_number=entry.sequence_number if entry.sequence_number is not None else INITIAL_SEQUENCE_NUMBER,
        snapshot_id=entry.snapshot_id,
        referenced_data_file=str(referenced) if referenced is not None else None,
        path_lower=lower,
        path_upper=upper,
    )


def manifest_entries(io: FileIO, manifest: ManifestFile, *, deleted: bool = False) -> list[ManifestEntry]:
    """The live (added or existing) entries of one manifest, or with deleted the entries of the files the manifest's
    snapshot removed, with the v3 fields and the sequence numbers and snapshot ids they inherit from the manifest
    list."""
    with AvroFile[ManifestEntry](
        io.new_input(manifest.manifest_path),
        MANIFEST_ENTRY_SCHEMAS[3],
        read_types={-1: ManifestEntry, 2: DataFile},
        read_enums={0: ManifestEntryStatus, 101: FileFormat, 134: DataFileContent},
    ) as reader:
        return [_inherit_from_manifest(entry, manifest) for entry in reader
                if (entry.status == ManifestEntryStatus.DELETED) == deleted]


def live_entries(io: FileIO, manifest: ManifestFile) -> list[ManifestEntry]:
    """The live (added or existing) entries of one manifest (manifest_entries)."""
    return manifest_entries(io, manifest)


def read_live_files(io: FileIO, manifest: ManifestFile) -> list[LiveFile]:
    """The live (added or existing) files of one manifest."""
    return [live_file(entry) for entry in live_entries(io, manifest)]


MANIFEST_CACHE_FILES = 100_000
"""Live files the cache holds at most, over all manifests."""


class ManifestCache:
    """Live files by manifest: (path, sequence number, adding snapshot) -> files, least recently used out first."""

    def __init__(self, max_files: int = MANIFEST_CACHE_FILES) -> None:
        self.max_files = max_files
        self._entries: OrderedDict[tuple[str, int | None, int | None], tuple[LiveFile, ...]] = OrderedDict()
        self._files = 0
        self._lock = threading.Lock()

    @staticmethod
    def key(manifest: ManifestFile) -> tuple[str, int | None, int | None]:
        # Sequence number and snapshot id too: the live files inherit them from the manifest list's entry.
        return manifest.manifest_path, manifest.sequence_number, manifest.added_snapshot_id

    def get(self, manifest: ManifestFile) -> tuple[LiveFile, ...] | None:
        with self._lock:
            files = self._entries.get(self.key(manifest))
            if files is not None:
                self._entries.move_to_end(self.key(manifest))
            return files

    def put(self, manifest: ManifestFile, files: tuple[LiveFile, ...]) -> None:
        if len(files) > self.max_files:
            return
        with self._lock:
            key = self.key(manifest)
            if key in self._entries:
                return
            self._entries[key] = files
            self._files += len(files)
            while self._files > self.max_files:
                _, evicted = self._entries.popitem(last=False)
                self._files -= len(evicted)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._files = 0

    @property
    def files(self) -> int:
        return self._files


MANIFESTS = ManifestCache()


def live_files(io: FileIO, manifests: list[ManifestFile], cache: ManifestCache = MANIFESTS) -> list[LiveFile]:
    """Every live file of the given manifests: from the cache, the others read in parallel (pyiceberg's executor)."""
    cached = [cache.get(m) for m in manifests]
    missing = [m for m, files in zip(manifests, cached, strict=False) if files is None]
    executor = ExecutorFactory.get_or_create()
    read = dict(zip((cache.key(m) for m in missing), executor.map(lambda m: tuple(read_live_files(io, m)), missing),
                    strict=False))
    for manifest in missing:
        cache.put(manifest, read[cache.key(manifest)])
    found: list[LiveFile] = []
    for manifest, files in zip(manifests, cached, strict=False):
        found.extend(files if files is not None else read[cache.key(manifest)])
    return found
