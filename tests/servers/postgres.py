"""A throwaway PostgreSQL 15 cluster from Debian's package, ready for logical replication and password logins over TCP.

`initdb` makes a fresh cluster in a temporary folder (as the OS user `postgres` when the tests run as
root: PostgreSQL refuses to run as root), and the server runs with `wal_level=logical` on a free
loopback port, so Debezium can capture from it and Iceberg's SQL/JDBC catalogs can keep their tables in it.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import signal
import subprocess
import tempfile
import uuid
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tests.servers.processes import Process, Processes, as_user, free_port, wait_until

if TYPE_CHECKING:
    from psycopg2.extensions import connection

PG_BIN = Path(os.environ.get("LAKEOPS_PG_BIN", "/usr/lib/postgresql/15/bin"))
SUPERUSER = "lakeops"
# What logical replication needs, plus settings that make a throwaway cluster fast (no durability needed).
SERVER_SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "wal_level": "logical",
    "max_replication_slots": "32",
    "max_wal_senders": "32",
    "max_connections": "200",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "timezone": "UTC",
}


@dataclass(frozen=True)
class PostgresServer:
    """A running cluster: connect with `superuser`/`password` at host:port; each test makes its own database."""
    host: str
    port: int
    superuser: str
    password: str
    data_dir: Path
    log: Path

    def dsn(self, database: str = "postgres") -> str:
        """A libpq connection string (psycopg2.connect)."""
        return f"host={self.host} port={self.port} user={self.superuser} password={self.password} dbname={database}"

    def sqlalchemy_url(self, database: str) -> str:
        """The SQLAlchemy URL pyiceberg's SqlCatalog takes as its `uri`."""
        return f"postgresql+psycopg2://{self.superuser}:{self.password}@{self.host}:{self.port}/{database}"

    def jdbc_url(self, database: str) -> str:
        """The JDBC URL Iceberg's JdbcCatalog and Debezium take (user and password are passed apart)."""
        return f"jdbc:postgresql://{self.host}:{self.port}/{database}"

    def connect(self, database: str = "postgres", autocommit: bool = True) -> connection:
        """A psycopg2 connection over TCP with the password.

        Close it with contextlib.closing: psycopg2's own `with` on a connection only ends a transaction."""
        import psycopg2

        conn = psycopg2.connect(self.dsn(database), connect_timeout=5)
        conn.autocommit = autocommit
        return conn

    def create_database(self, prefix: str = "test", *, name: str | None = None) -> str:
        """A new, empty database: `name`, or a unique name from `prefix` (lower case, safe to use unquoted)."""
        name = name or f"{prefix}_{uuid.uuid4().hex[:12]}".lower()
        with closing(self.connect()) as conn, conn.cursor() as cur:
            cur.execute(f'CREATE DATABASE "{name}"')
        return name


def _server_user() -> str | None:
    """The OS user to run initdb and postgres as: `postgres` when we are root (PostgreSQL refuses root), else ourselves."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("postgres")
    except KeyError as e:
        raise RuntimeError("the tests run as root but there is no OS user `postgres`: apt-get install postgresql") from e
    return "postgres"


def _ready(server: PostgresServer) -> bool:
    import psycopg2

    try:
        server.connect().close()
        return True
    except psycopg2.OperationalError:
        return False


def start_postgres(processes: Processes) -> PostgresServer:
    """initdb a fresh cluster under processes.work_dir and start it on a free port; stops with the other processes."""
    initdb = PG_BIN / "initdb"
    if not initdb.exists():
        raise RuntimeError(f"{initdb} is missing: run `make test-deps` (installs Debian's postgresql package)")
    user = _server_user()
    # Under root the work dir (pytest's is mode 0700, owned by root) is out of reach for `postgres`: use a folder of its own.
    home = Path(tempfile.mkdtemp(prefix="lakeops-pg-"))
    data_dir, password = home / "data", secrets.token_hex(16)
    password_file = home / "password"
    password_file.write_text(password + "\n")
    if user is not None:
        shutil.chown(home, user)
        shutil.chown(password_file, user)
    env = {**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
    init_log = processes.work_dir / "postgres-initdb.log"
    with open(init_log, "wb") as out:
        result = subprocess.run([str(initdb), "-D", str(data_dir), "-U", SUPERUSER, f"--pwfile={password_file}", "-E", "UTF8",
                                 "--locale=C.UTF-8", "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync"],
                                stdout=out, stderr=subprocess.STDOUT, env=env, cwd=home, check=False, **as_user(user))
    password_file.unlink()
    if result.returncode != 0:
        raise RuntimeError(f"initdb failed with {result.returncode} (log: {init_log}):\n{init_log.read_text(errors='replace')}")
    port = free_port()
    settings = {**SERVER_SETTINGS, "port": str(port), "unix_socket_directories": str(home)}
    command = [str(PG_BIN / "postgres"), "-D", str(data_dir)]
    for key, value in settings.items():
        command += ["-c", f"{key}={value}"]
    # SIGINT is PostgreSQL's fast shutdown: it ends open sessions (replication included) instead of waiting for them.
    process: Process = processes.start("postgres", command, env, user=user, stop_signal=signal.SIGINT)
    server = PostgresServer("127.0.0.1", port, SUPERUSER, password, data_dir, process.log)
    wait_until(process, lambda: _ready(server), timeout=60)
    return server


def remove_cluster(server: PostgresServer) -> None:
    """Delete the cluster's folder once the server has stopped."""
    shutil.rmtree(server.data_dir.parent, ignore_errors=True)
