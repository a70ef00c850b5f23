"""Failpoints: named places where a process can be made to stop, so crash tests kill it with
SIGKILL at exactly that point. Off unless LAKEOPS_FAILPOINT names the point.

    LAKEOPS_FAILPOINT=writer_before_manifest   a staged writer, after its data files, before its manifest
    LAKEOPS_FAILPOINT=committer_after_commit   the staged committer, after its commits, before its clean-up

A process that reaches the named point logs it, creates the file LAKEOPS_FAILPOINT_READY names
(when set, so a test knows when to kill) and then blocks until it is killed.
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

log = logging.getLogger(__name__)


def failpoint(name: str) -> None:
    if os.environ.get(FAILPOINT_ENV) != name:
        return
    log.warning("failpoint %s reached (pid %d); blocking until this process is killed", name, os.getpid())
    ready = os.environ.get(READY_ENV)
    if ready:
        Path(ready).write_text(f"{name} {os.getpid()}\n")
    while True:
        time.sleep(1)
