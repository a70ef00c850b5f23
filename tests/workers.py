"""The suite on two pytest-xdist workers (`make test`: `-n 2 --dist loadfile`), with each shared
server still started once per run.

Each test file is one unit of work, so its module fixtures start once. Every file that uses a
session-wide server (PostgreSQL, Kafka, Kafka Connect, the Airflow deployment) joins one unit,
scheduled first: the worker that takes it runs them all while the other runs the rest. The workers
know which files those are (from their fixtures); the controller, which collects nothing, reads the
list they write. (xdist's own `loadgroup` marks a test by rewriting its node id, which pytest 9
no longer lets a plugin do.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from xdist.scheduler import LoadScopeScheduling

SHARED_SERVERS = frozenset({"postgres_server", "kafka_broker", "kafka_connect", "airflow_services"})
SHARED_UNIT = "shared-servers"
LIST_ENV = "LAKEOPS_TEST_SHARED_SERVER_FILES"


def module(nodeid: str) -> str:
    return nodeid.split("::")[0]


def shared_server_files(items: list[pytest.Item]) -> set[str]:
    """The test files any of whose tests uses a shared server (directly or through other fixtures)."""
    return {module(item.nodeid) for item in items if SHARED_SERVERS & set(getattr(item, "fixturenames", ()))}


def prepare_controller(config: pytest.Config, directory: Path) -> None:
    """In the controller, before the workers start: where they will write the list."""
    if not hasattr(config, "workerinput") and config.getoption("numprocesses", None):
        os.environ[LIST_ENV] = str(directory / "shared-server-files.txt")


def order_in_worker(items: list[pytest.Item]) -> None:
    """In a worker: write the list (every worker writes the same) and put those files first."""
    target = os.environ.get(LIST_ENV)
    if not target or not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    shared = shared_server_files(items)
    partial = Path(f"{target}.{os.environ['PYTEST_XDIST_WORKER']}")
    partial.write_text("\n".join(sorted(shared)))
    partial.replace(target)
    items.sort(key=lambda item: module(item.nodeid) not in shared)


class SharedServerScheduling(LoadScopeScheduling):
    """xdist's per-scope scheduling with the scope of a test its file, or SHARED_UNIT for the files
    that use a shared server."""

    _shared: frozenset[str] | None = None

    def _split_scope(self, nodeid: str) -> str:
        if self._shared is None:
            # Every worker has collected (and written the list) before the first scheduling.
            written = Path(os.environ.get(LIST_ENV, ""))
            self._shared = frozenset(written.read_text().split()) if written.is_file() else frozenset()
        return SHARED_UNIT if module(nodeid) in self._shared else module(nodeid)
