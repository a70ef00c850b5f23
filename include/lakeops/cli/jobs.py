"""Run one of lakeops' Spark jobs with spark-submit, as the DAGs' operator does: stream its progress
lines as they come and return the result it reports on its LAKEOPS_RESULT line."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import IO, Any

from lakeops.exceptions import LakeopsError
from lakeops.spark.job import RESULT_PREFIX

TAIL_LINES = 40


class JobFailed(LakeopsError):
    """A Spark job exited non-zero (or without a result); `exit_code` is the job's."""

    def __init__(self, job: str, exit_code: int, message: str) -> None:
        super().__init__(f"the {job} job failed (exit status {exit_code}): {message}")
        self.exit_code = exit_code or 1


def result_of(line: str) -> dict[str, Any] | None:
    """The result a job reports on its last line; None for any other line."""
    if not line.startswith(RESULT_PREFIX):
        return None
    value = json.loads(line[len(RESULT_PREFIX):])
    return value if isinstance(value, dict) else {"result": value}


def failure_message(lines: Iterable[str], stderr: Iterable[str] = ()) -> str:
    """What a failed job said: its last ERROR log line (a lakeops error's message says the fix), with the
    exception line of the traceback logged after it, if any; else the last exception Spark printed on
    stderr (a master it cannot reach, a missing jar); else the last line of either."""
    lines = [line.rstrip() for line in lines if line.strip()]
    errors = [i for i, line in enumerate(lines) if " ERROR " in line]
    if errors:
        after = lines[errors[-1]].split(" ERROR ", 1)[1]
        message = after.split(": ", 1)[1] if ": " in after else after
        raised = [line for line in lines[errors[-1] + 1:] if not line.startswith((" ", "\t", "Traceback"))]
        return f"{message}: {raised[-1]}" if raised else message
    spark = [line.rstrip() for line in stderr if line.strip()]
    thrown = [line for line in spark if not line.startswith((" ", "\t")) and ("Exception" in line or "Error" in line)]
    for found in (thrown, spark, lines):
        if found:
            return found[-1].strip()
    return "it printed nothing"


def _forward(stream: IO[str], tail: deque[str]) -> None:
    """Copy a child's stderr to ours line by line, keeping its last lines."""
    for line in stream:
        sys.stderr.write(line)
        sys.stderr.flush()
        tail.append(line)


def run_job(job: str, job_args: list[str], master: str, env: dict[str, str],
            progress: Callable[[str], None]) -> dict[str, Any]:
    """spark-submit `job` with `job_args` on `master`; each line it prints goes to `progress` as it
    comes (Spark's own log to this process's stderr); its result is returned. A job that exits non-zero
    or reports nothing raises JobFailed with its message."""
    from lakeops.runtime import spark_submit_command

    with tempfile.TemporaryDirectory(prefix="lakeops-cli-") as work_dir:
        command = spark_submit_command(job, job_args, work_dir, master)
        progress(f"starting Spark: spark-submit {job} on {master}")
        result: dict[str, Any] | None = None
        tail: deque[str] = deque(maxlen=TAIL_LINES)
        err_tail: deque[str] = deque(maxlen=TAIL_LINES)
        try:
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                       bufsize=1)
        except FileNotFoundError as e:
            raise JobFailed(job, 1, f"{command[0]} was not found on PATH ({env.get('PATH', '')}); install pyspark into "
                                    "this environment or put Spark's bin folder on PATH") from e
        assert process.stdout is not None and process.stderr is not None
        forwarder = threading.Thread(target=_forward, args=(process.stderr, err_tail), daemon=True)
        forwarder.start()
        try:
            for raw in process.stdout:
                line = raw.rstrip("\n")
                found = result_of(line)
                if found is not None:
                    result = found
                    continue
                tail.append(line)
                progress(line)
            code = process.wait()
        finally:
            if process.poll() is None:  # interrupted: do not leave a driver running
                process.terminate()
                process.wait()
            forwarder.join(timeout=10)
    if code != 0:
        raise JobFailed(job, code, failure_message(tail, err_tail))
    if result is None:
        raise JobFailed(job, 1, "it exited without reporting a result; its log is above")
    return result
