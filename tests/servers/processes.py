"""Start server processes on free loopback ports, wait until they serve, and stop them by their own id.

Generic helpers shared by every fixture that runs a real server (tests/servers, tests/e2e): each
process writes its output to a log file whose path is named in every failure message.
"""

from __future__ import annotations

import json
import os
import pwd
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def http_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


def as_user(user: str | None) -> dict[str, Any]:
    """subprocess arguments that run a child as `user` with that user's own group and no other (needs root); {} for None."""
    if user is None:
        return {}
    return {"user": user, "group": pwd.getpwnam(user).pw_gid, "extra_groups": []}


def resolved_dir(env_var: str, default: Path, marker_glob: str, make_hint: str) -> Path:
    """A folder of jars that a make target resolved from Maven Central, or a RuntimeError that names the target."""
    directory = Path(os.environ.get(env_var) or default)
    if not (directory / ".resolved").exists() and not list(directory.glob(marker_glob)):
        raise RuntimeError(f"the test servers are not in {directory}; run `{make_hint}`")
    return directory


@dataclass
class Process:
    name: str
    popen: subprocess.Popen
    log: Path
    stop_signal: int = signal.SIGTERM

    def tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.send_signal(self.stop_signal)
            try:
                self.popen.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=10)


@dataclass
class Processes:
    """Processes started by one fixture, stopped in reverse order."""
    work_dir: Path
    started: list[Process] = field(default_factory=list)

    def start(self, name: str, command: list[str], env: dict[str, str], *, user: str | None = None,
              stop_signal: int = signal.SIGTERM) -> Process:
        """Start `command` with its output in work_dir/NAME.log; `user` runs it as that OS user (needs root)."""
        log = self.work_dir / f"{name}.log"
        with open(log, "wb") as out:
            popen = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=self.work_dir,
                                     stdin=subprocess.DEVNULL, **as_user(user))
        process = Process(name, popen, log, stop_signal)
        self.started.append(process)
        return process

    def stop_all(self) -> None:
        for process in reversed(self.started):
            process.stop()


def wait_until(process: Process, ready: Callable[[], bool], timeout: float = 240) -> None:
    """Poll `ready` until it returns true; fail with the log's tail (and path) if the process exits or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.popen.poll() is not None:
            raise RuntimeError(f"{process.name} exited with {process.popen.returncode} (log: {process.log}):\n{process.tail()}")
        try:
            if ready():
                return
        except (OSError, urllib.error.URLError, ValueError):
            pass
        time.sleep(0.5)
    raise RuntimeError(f"{process.name} was not ready after {timeout:.0f} s (log: {process.log}):\n{process.tail()}")


def java_command(classpath: list[Path], main_class: str, *args: str, heap: str = "256m",
                 log4j_config: Path | None = None) -> list[str]:
    """A lean JVM for a test server: small heap, serial GC and the C1 compiler only, which start fastest on 2 cores."""
    command = ["java", "-Xms64m", f"-Xmx{heap}", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true"]
    if log4j_config is not None:
        command.append(f"-Dlog4j2.configurationFile={log4j_config}")
    return [*command, "-cp", os.pathsep.join(str(p) for p in classpath), main_class, *args]
