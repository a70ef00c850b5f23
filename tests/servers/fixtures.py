"""Session-wide pytest fixtures for the real servers: one PostgreSQL, one Kafka broker and one Kafka Connect worker
with Debezium, each started once on first use and stopped at the end of the session.

Registered for every test directory by tests/conftest.py (`pytest_plugins`). Tests isolate themselves
by name: their own database (`postgres_database`), their own topics, their own connector (`debezium_postgres`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.servers.connect import KafkaConnect, start_kafka_connect
from tests.servers.debezium import PostgresConnector, register_postgres_connector
from tests.servers.kafka import KafkaBroker, start_kafka
from tests.servers.postgres import PostgresServer, remove_cluster, start_postgres
from tests.servers.processes import Processes

STARTUP_SECONDS: dict[str, float] = {}


def _started(name: str, started: float, log: Path) -> None:
    STARTUP_SECONDS[name] = time.monotonic() - started
    print(f"\n{name} started in {STARTUP_SECONDS[name]:.1f} s (log: {log})")


def pytest_terminal_summary(terminalreporter) -> None:
    """One line with each shared server's start-up time, to keep an eye on the suite's budget."""
    if STARTUP_SECONDS:
        terminalreporter.write_line("server start-up: " + ", ".join(f"{k} {v:.1f} s" for k, v in STARTUP_SECONDS.items()))


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresServer]:
    """PostgreSQL 15 with wal_level=logical on a free loopback port; log in with .superuser/.password over TCP."""
    processes = Processes(tmp_path_factory.mktemp("postgres"))
    started = time.monotonic()
    server = None
    try:
        server = start_postgres(processes)
        _started("PostgreSQL", started, server.log)
        yield server
    finally:
        processes.stop_all()
        if server is not None:
            remove_cluster(server)


@pytest.fixture()
def postgres_database(postgres_server: PostgresServer) -> str:
    """The name of a new, empty database that this test owns."""
    return postgres_server.create_database()


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaBroker]:
    """A one-node Kafka cluster in KRaft mode; `.bootstrap_servers` is host:port on loopback."""
    processes = Processes(tmp_path_factory.mktemp("kafka"))
    started = time.monotonic()
    try:
        broker = start_kafka(processes)
        _started("Kafka", started, broker.log)
        yield broker
    finally:
        processes.stop_all()


@pytest.fixture(scope="session")
def kafka_connect(tmp_path_factory: pytest.TempPathFactory, kafka_broker: KafkaBroker) -> Iterator[KafkaConnect]:
    """A Kafka Connect standalone worker with Debezium's PostgreSQL connector, writing to kafka_broker."""
    processes = Processes(tmp_path_factory.mktemp("kafka-connect"))
    started = time.monotonic()
    try:
        connect = start_kafka_connect(processes, kafka_broker)
        _started("Kafka Connect", started, connect.log)
        yield connect
    finally:
        processes.stop_all()


@pytest.fixture()
def debezium_postgres(postgres_server: PostgresServer, kafka_connect: KafkaConnect
                      ) -> Iterator[Callable[..., PostgresConnector]]:
    """`register(database, tables, schemas_enable=True, extra=None)`: a Debezium connector whose initial snapshot is done.

    Connectors registered through it are deleted (with their replication slots) when the test ends."""
    registered: list[PostgresConnector] = []

    def register(database: str, tables: list[str], **options) -> PostgresConnector:
        connector = register_postgres_connector(kafka_connect, postgres_server, database, tables, **options)
        registered.append(connector)
        return connector

    yield register
    for connector in registered:
        connector.delete()
