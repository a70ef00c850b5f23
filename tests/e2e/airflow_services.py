"""A real Airflow 3 deployment for tests: scheduler, dag-processor, triggerer and api-server run as
separate `airflow` processes on free loopback ports, with a private AIRFLOW_HOME (SQLite metadata DB,
LocalExecutor), a chosen DAGs folder and lakeops' plugin, which Airflow finds through the installed
package's `airflow.plugins` entry point.

Every component runs in its own process group, so stopping one also stops the task and parsing
processes it started; nothing outlives the fixture.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[2]
COMPONENTS = ("scheduler", "dag-processor", "triggerer", "api-server")
HEALTH_COMPONENTS = ("metadatabase", "scheduler", "triggerer", "dag_processor")
ADMIN_USER = "admin"
VIEWER_USER = "viewer"
"""A read-only user (the simple auth manager's viewer role): may read DAG runs, may not trigger them."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def airflow_env(home: Path, dags_folder: Path, api_port: int, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment every component and every `airflow` CLI call of one deployment shares."""
    bin_dir = Path(sys.executable).parent
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW__")}
    env.update({
        "AIRFLOW_HOME": str(home),
        "AIRFLOW__CORE__DAGS_FOLDER": str(dags_folder),
        # No plugins folder of ours: the plugin comes from the package's entry point (a folder would register it twice).
        "AIRFLOW__CORE__PLUGINS_FOLDER": str(home / "plugins"),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
        "AIRFLOW__CORE__PARALLELISM": "4",
        "AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION": "True",
        # Four components and the CLI share one SQLite file: wait up to 60 s for its write lock
        # (sqlite3's default is 5 s, which a loaded 2-core machine overruns).
        "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{home / 'airflow.db'}?timeout=60",
        "AIRFLOW__API__HOST": "127.0.0.1",
        "AIRFLOW__API__PORT": str(api_port),
        "AIRFLOW__API__BASE_URL": f"http://127.0.0.1:{api_port}",
        "AIRFLOW__API__WORKERS": "1",
        "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"http://127.0.0.1:{api_port}/execution/",
        # 8793/8794 by default: two deployments on one machine would collide.
        "AIRFLOW__LOGGING__WORKER_LOG_SERVER_PORT": str(free_port()),
        "AIRFLOW__LOGGING__TRIGGER_LOG_SERVER_PORT": str(free_port()),
        # All components must sign and accept the same tokens.
        "AIRFLOW__API_AUTH__JWT_SECRET": secrets.token_urlsafe(32),
        "AIRFLOW__API__SECRET_KEY": secrets.token_urlsafe(32),
        "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS": f"{ADMIN_USER}:admin,{VIEWER_USER}:viewer",
        "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE": str(home / "passwords.json"),
        # Short loops so a test sees new DAG files, runs and missed deadlines within seconds.
        "AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL": "5",
        "AIRFLOW__DAG_PROCESSOR__MIN_FILE_PROCESS_INTERVAL": "10",
        "AIRFLOW__SCHEDULER__SCHEDULER_IDLE_SLEEP_TIME": "0.5",
        "AIRFLOW__SCHEDULER__JOB_HEARTBEAT_SEC": "2",
        "AIRFLOW__SCHEDULER__SCHEDULER_HEARTBEAT_SEC": "2",
        "AIRFLOW__TRIGGERER__JOB_HEARTBEAT_SEC": "2",
        "AIRFLOW__WEBSERVER__EXPOSE_CONFIG": "False",
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
    })
    env.update(extra or {})
    return env


class ApiError(RuntimeError):
    """An error status from the REST API, with the api-server's log."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class AirflowServices:
    """A running deployment: what tests need to talk to it."""

    home: Path
    dags_folder: Path
    base_url: str
    env: dict[str, str]
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)

    @property
    def log_dir(self) -> Path:
        return self.home / "component-logs"

    def password(self, user: str = ADMIN_USER) -> str:
        return json.loads((self.home / "passwords.json").read_text())[user]

    def token(self, user: str = ADMIN_USER) -> str:
        """A JWT for `user` (the admin by default), from the api-server's /auth/token endpoint."""
        body = json.dumps({"username": user, "password": self.password(user)}).encode()
        request = urllib.request.Request(f"{self.base_url}/auth/token", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())["access_token"]

    def api(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        """Call the REST API (/api/v2/...) as the admin user; returns the decoded JSON."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.base_url}{path}", data=data, method=method, headers={
            "Content-Type": "application/json", "Authorization": f"Bearer {token or self.token()}"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                raw = response.read()
        except urllib.error.HTTPError as error:  # the api-server's log says why
            raise ApiError(error.code, f"{method} {path}: HTTP {error.code} {error.read()[:2000]!r}\n"
                                       f"{self.logs_tail()}") from error
        return json.loads(raw) if raw else None

    def cli(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        """Run `airflow <args>` against this deployment; raises with its output when it fails."""
        proc = subprocess.run(["airflow", *args], env=self.env, capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            raise RuntimeError(f"airflow {' '.join(args)} failed ({proc.returncode}):\n"
                               f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        return proc

    def health(self) -> dict[str, str]:
        with urllib.request.urlopen(f"{self.base_url}/api/v2/monitor/health", timeout=5) as response:
            data = json.loads(response.read())
        return {name: (data.get(name) or {}).get("status", "") for name in HEALTH_COMPONENTS}

    def logs_tail(self, chars: int = 3000) -> str:
        parts = []
        for path in sorted(self.log_dir.glob("*.log")):
            parts.append(f"--- {path.name}\n{path.read_text(errors='replace')[-chars:]}")
        return "\n".join(parts)

    def wait_for(self, predicate, timeout: float, what: str, interval: float = 1.0) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            dead = [name for name, proc in self.processes.items() if proc.poll() is not None]
            if dead:
                raise RuntimeError(f"Airflow component(s) {dead} exited while waiting for {what}\n{self.logs_tail()}")
            value = predicate()
            if value:
                return value
            time.sleep(interval)
        raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}\n{self.logs_tail()}")

    def dag_run_state(self, dag_id: str, run_id: str) -> str:
        return str(self.api("GET", f"/api/v2/dags/{dag_id}/dagRuns/{urllib.request.quote(run_id, safe='')}")["state"])

    def stop(self) -> None:
        for proc in self.processes.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        stop_by = time.monotonic() + 30
        for proc in self.processes.values():
            try:
                proc.wait(timeout=max(0.1, stop_by - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for proc in self.processes.values():
            # The group may still hold task or parsing processes after the component itself exited.
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=10)


def _use_write_ahead_log(db: Path) -> None:
    """Switch the metadata DB to WAL, so the components' reads no longer block the writes of the
    scheduler and CLI. The mode is stored in the file and holds for every later connection."""
    with closing(sqlite3.connect(db)) as connection:
        mode = connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    if mode != "wal":
        raise RuntimeError(f"{db}: SQLite kept journal_mode={mode!r}; WAL needs a local filesystem")


def start_airflow(home: Path, dags_folder: Path, extra_env: dict[str, str] | None = None,
                  timeout: float = 240) -> AirflowServices:
    """Migrate a fresh metadata DB, start the four components and wait until all report healthy."""
    home.mkdir(parents=True, exist_ok=True)
    api_port = free_port()
    services = AirflowServices(home=home, dags_folder=dags_folder, base_url=f"http://127.0.0.1:{api_port}",
                               env=airflow_env(home, dags_folder, api_port, extra_env))
    services.cli("db", "migrate", timeout=300)
    _use_write_ahead_log(home / "airflow.db")
    services.cli("pools", "set", "lakeops_spark", "2", "lakeops Spark jobs")
    services.log_dir.mkdir(exist_ok=True)
    try:
        for name in COMPONENTS:
            log = open(services.log_dir / f"{name}.log", "wb")  # noqa: SIM115 - owned by the process
            services.processes[name] = subprocess.Popen(
                ["airflow", name], env=services.env, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True, cwd=home)
            log.close()

        def healthy() -> bool:
            try:
                return all(status == "healthy" for status in services.health().values())
            except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
                return False

        services.wait_for(healthy, timeout, "scheduler, dag-processor, triggerer and api-server to report healthy")
    except BaseException:
        services.stop()
        raise
    return services
