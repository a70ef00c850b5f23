"""In-flight maintenance markers: a job that must keep the snapshot it started from (a compaction
rewriting from it) says so with a small JSON file under <table location>/_lakeops/inflight/.

Snapshot expiry keeps every snapshot named by a marker younger than MARKER_TTL_HOURS; an older
marker is left by a crashed job and no longer protects anything (it is reported, then removed by
the next expiry run).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

INFLIGHT_DIR = "_lakeops/inflight"
MARKER_TTL_HOURS = 24


@dataclass(frozen=True)
class InflightMarker:
    kind: str
    run_id: str
    snapshot_id: int
    started_at_ms: int
    path: str

    def is_live(self, now_ms: int) -> bool:
        return now_ms - self.started_at_ms < MARKER_TTL_HOURS * 3600 * 1000


def _root(table_location: str) -> str:
    return f"{table_location.rstrip('/')}/{INFLIGHT_DIR}"


@contextmanager
def inflight(table_location: str, kind: str, run_id: str, snapshot_id: int) -> Iterator[InflightMarker]:
    """Hold a marker for the duration of the block; it is removed on exit, even on error."""
    from lakeops.catalogs.fileio import filesystem_for

    fs, root = filesystem_for(_root(table_location))
    fs.create_dir(root, recursive=True)
    marker = InflightMarker(kind, run_id, snapshot_id, int(time.time() * 1000), f"{root}/{kind}-{uuid.uuid4().hex}.json")
    with fs.open_output_stream(marker.path) as out:
        out.write(json.dumps({"kind": kind, "run_id": run_id, "snapshot_id": snapshot_id,
                              "started_at_ms": marker.started_at_ms}).encode())
    try:
        yield marker
    finally:
        fs.delete_file(marker.path)


def read_markers(table_location: str) -> list[InflightMarker]:
    """Every marker under the table, live or stale; unreadable ones are skipped."""
    from pyarrow.fs import FileSelector, FileType

    from lakeops.catalogs.fileio import filesystem_for

    fs, root = filesystem_for(_root(table_location))
    infos = fs.get_file_info(FileSelector(root, allow_not_found=True))
    markers = []
    for info in infos:
        if info.type != FileType.File or not info.path.endswith(".json"):
            continue
        try:
            with fs.open_input_stream(info.path) as stream:
                data = json.loads(stream.read())
            markers.append(InflightMarker(str(data["kind"]), str(data["run_id"]), int(data["snapshot_id"]),
                                          int(data["started_at_ms"]), info.path))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return markers
