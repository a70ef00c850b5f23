"""Snapshots a Spark Structured Streaming query reading the table still needs, from its checkpoint: the
query restarts from the end offset of its last committed micro-batch and replays the planned one (Iceberg's
streaming source names a snapshot in each offset, and reads on snapshot by snapshot from there), and Iceberg's
source reads the offset it started from (kept under sources/<n>/offsets/) again whenever an availableNow run
starts. Expiring any of those breaks the query's restart."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)


def batch_ids(names: list[str]) -> list[int]:
    """Micro-batch ids of a checkpoint folder listing (offsets/ or commits/): the files named by a number."""
    return sorted(int(n) for n in names if n.isdigit())


def offset_snapshots(text: str) -> list[int]:
    """Snapshot ids in one offsets file: a version line, the batch metadata, then one offset per source;
    an Iceberg source's offset is JSON with a snapshot_id. Other sources' offsets (Kafka, files) are skipped."""
    found = []
    for line in text.splitlines()[2:]:
        try:
            offset = json.loads(line)
        except ValueError:
            continue
        if isinstance(offset, dict) and isinstance(offset.get("snapshot_id"), int):
            found.append(int(offset["snapshot_id"]))
    return found


def needed_snapshots(offsets: Mapping[int, str], committed: list[int]) -> list[int]:
    """Snapshots the query needs: those in the offsets of its last committed micro-batch and of every
    micro-batch planned after it (the restart replays those). `offsets`: micro-batch id -> offsets file text."""
    last = max(committed, default=-1)
    needed: list[int] = []
    for batch in sorted(offsets):
        if batch >= last:
            needed += [s for s in offset_snapshots(offsets[batch]) if s not in needed]
    return needed


@dataclass(frozen=True)
class CheckpointNeeds:
    resume_from: list[int]
    """Snapshots the query resumes from: each is needed, and so is every later snapshot (not read yet)."""
    started_at: list[int]
    """The snapshots its sources started from: needed alone."""


def read_checkpoint(location: str) -> CheckpointNeeds:
    """What the streaming query checkpointed at `location` needs; nothing when it has not started yet."""
    from pyarrow.fs import FileSelector, FileSystem, FileType

    fs, root = FileSystem.from_uri(location if "://" in location else f"file://{location}")

    def listing(folder: str) -> list[str]:
        infos = fs.get_file_info(FileSelector(f"{root.rstrip('/')}/{folder}", allow_not_found=True))
        return [i.base_name for i in infos if i.type == FileType.File]

    offset_ids, committed = batch_ids(listing("offsets")), batch_ids(listing("commits"))
    last = max(committed, default=-1)
    texts = {}
    for batch in offset_ids:
        if batch >= last:
            with fs.open_input_stream(f"{root.rstrip('/')}/offsets/{batch}") as stream:
                texts[batch] = stream.read().decode()
    needed = needed_snapshots(texts, committed)
    started: list[int] = []
    for source in listing_dirs(fs, f"{root.rstrip('/')}/sources"):
        for name in batch_ids(listing(f"sources/{source}/offsets")):  # skips the .crc files beside them
            with fs.open_input_stream(f"{root.rstrip('/')}/sources/{source}/offsets/{name}") as stream:
                started += [s for s in initial_snapshots(stream.read().decode()) if s not in started]
    log.info("streaming checkpoint %s: last committed micro-batch %s, resumes from snapshots %s, started at %s", location,
             last, needed, started)
    return CheckpointNeeds(needed, started)


def initial_snapshots(text: str) -> list[int]:
    """Snapshot ids in a source's stored initial offset (one JSON document, possibly after a version line)."""
    return offset_snapshots("\n\n" + text)


def listing_dirs(fs: Any, folder: str) -> list[str]:
    from pyarrow.fs import FileSelector, FileType

    return sorted(i.base_name for i in fs.get_file_info(FileSelector(folder, allow_not_found=True))
                  if i.type == FileType.Directory)
