"""Snapshots a Spark Structured Streaming query reading the table still needs, from its checkpoint: the
query restarts from the end offset of its last committed micro-batch and replays the planned one, and
Iceberg's streaming source names a snapshot in each offset. Expiring those breaks the query's restart."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping

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


def read_checkpoint(location: str) -> list[int]:
    """The snapshots the streaming query checkpointed at `location` needs; none when it has not started yet."""
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
    log.info("streaming checkpoint %s: last committed micro-batch %s, needs snapshots %s", location, last, needed)
    return needed
