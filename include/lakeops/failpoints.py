"""Failpoints: named places where a real job can be made to stop, so crash tests kill it with
SIGKILL (no clean-up runs) at exactly that point and then retry. Inert unless LAKEOPS_FAILPOINT
names the point:

    LAKEOPS_FAILPOINT=writer_before_manifest   a staged writer, after its data files, before its manifest
    LAKEOPS_FAILPOINT=committer_after_commit   the staged committer, after its commits, before its clean-up
    LAKEOPS_FAILPOINT=etl_before_publish       the ETL's data is written and staged, not yet published
    LAKEOPS_FAILPOINT=etl_after_publish        the ETL's commit is published, the job has not reported yet
    LAKEOPS_FAILPOINT=ingest_before_publish    an ingest batch's rows are written and staged (events append or CDC
                                               MERGE, after the quarantine's commit), not yet published

A process that reaches the named point logs `failpoint <name> reached (pid <pid>)`, creates the
file LAKEOPS_FAILPOINT_READY names (when set, so a test knows when to kill) and blocks. A point
nobody kills within MAX_BLOCK_S raises instead of hanging forever.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

FAILPOINT_ENV = "LAKEOPS_FAILPOINT"
READY_ENV = "LAKEOPS_FAILPOINT_READY"
WRITER_BEFORE_MANIFEST = "writer_before_manifest"
COMMITTER_AFTER_COMMIT = "committer_after_commit"
ETL_BEFORE_PUBLISH = "etl_before_publish"
ETL_AFTER_PUBLISH = "etl_after_publish"
INGEST_BEFORE_PUBLISH = "ingest_before_publish"
MAX_BLOCK_S = 600.0

log = logging.getLogger(__name__)


def failpoint(name: str) -> None:
    """Block here when $LAKEOPS_FAILPOINT is name; return at once otherwise."""
    if os.environ.get(FAILPOINT_ENV) != name:
        return
    log.warning("failpoint %s reached (pid %d); blocking until this process is killed", name, os.getpid())
    ready = os.environ.get(READY_ENV)
    if ready:
        Path(ready).write_text(f"{name} {os.getpid()}\n")
    deadline = time.monotonic() + MAX_BLOCK_S
    while time.monotonic() < deadline:
        time.sleep(0.5)
    raise RuntimeError(f"failpoint {name} was not killed within {MAX_BLOCK_S:.0f} s; unset {FAILPOINT_ENV} outside crash tests")
