"""Named points where a crash test can stop a real job: inert unless LAKEOPS_FAILPOINT names one.

    LAKEOPS_FAILPOINT=etl_before_publish spark-submit spark_jobs/incremental_etl.py ...

The job logs `failpoint <name> reached (pid <pid>)` and blocks there, so a test can kill its
process group at a known step (SIGKILL: no cleanup runs) and then retry. A point nobody kills
within MAX_BLOCK_S raises instead of hanging forever.

Points: etl_before_publish (the ETL's data is written and staged, not yet published),
etl_after_publish (published, the job has not reported yet).
"""

from __future__ import annotations

import logging
import os
import time

FAILPOINT_ENV = "LAKEOPS_FAILPOINT"
MAX_BLOCK_S = 600.0
log = logging.getLogger(__name__)


def failpoint(name: str) -> None:
    """Block here when $LAKEOPS_FAILPOINT is name; return at once otherwise."""
    if os.environ.get(FAILPOINT_ENV) != name:
        return
    log.warning("failpoint %s reached (pid %d); blocking until the process is killed", name, os.getpid())
    deadline = time.monotonic() + MAX_BLOCK_S
    while time.monotonic() < deadline:
        time.sleep(0.5)
    raise RuntimeError(f"failpoint {name} was not killed within {MAX_BLOCK_S:.0f} s; unset {FAILPOINT_ENV} outside crash tests")
