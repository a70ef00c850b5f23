"""Crash tests' one move: run a real process until it blocks at a failpoint
(lakeops.failpoints), then SIGKILL its whole process group (JVM and Python driver alike), so no
clean-up of any kind runs."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from lakeops.failpoints import FAILPOINT_ENV, READY_ENV

READY_TIMEOUT_S = 900  # a hang guard: spark-submit on a busy 2-core machine takes minutes to reach a failpoint


def kill_at_failpoint(command: list[str], failpoint: str, work: Path) -> str:
    """Start command stopping at failpoint, wait until it is there, SIGKILL its process group;
    returns the process's output (work/<failpoint>.log)."""
    ready, log_path = work / f"{failpoint}.ready", work / f"{failpoint}.log"
    env = {**os.environ, FAILPOINT_ENV: failpoint, READY_ENV: str(ready)}
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not ready.exists():
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"{command[0]} exited ({process.returncode}) or hung before failpoint {failpoint}:\n"
                            + log_path.read_text(errors="replace")[-4000:])
            time.sleep(0.5)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
    assert process.returncode == -signal.SIGKILL
    return log_path.read_text(errors="replace")
