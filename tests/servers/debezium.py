"""Debezium's PostgreSQL connector (plugin pgoutput) registered in the test Kafka Connect worker for one database's tables.

Converter settings are the worker's, i.e. Debezium's defaults (JsonConverter with schemas), unless a
test asks for the schemaless shape. Each connector gets its own topic prefix, replication slot and
publication, so tests never see each other's changes; `register` returns once the initial snapshot is
done, as Debezium's own notifications (sink channel, a topic of their own) report it.
"""

from __future__ import annotations

import json
import time
import uuid
from contextlib import closing
from dataclasses import dataclass
from typing import Any

from tests.servers.connect import POSTGRES_CONNECTOR, KafkaConnect
from tests.servers.kafka_client import KafkaRecord, read_topic, topic_exists, wait_for_records
from tests.servers.postgres import PostgresServer

SNAPSHOT_DONE = {"COMPLETED", "SKIPPED"}


@dataclass(frozen=True)
class PostgresConnector:
    """A running connector: its change events for schema.table go to topic `{topic_prefix}.{schema}.{table}`."""
    name: str
    topic_prefix: str
    slot_name: str
    database: str
    connect: KafkaConnect
    postgres: PostgresServer

    @property
    def notifications_topic(self) -> str:
        return f"{self.topic_prefix}.notifications"

    def topic(self, table: str) -> str:
        """The topic of `table` ("schema.table", or "table" for public)."""
        return f"{self.topic_prefix}.{table if '.' in table else 'public.' + table}"

    def read(self, table: str) -> list[KafkaRecord]:
        return read_topic(self.connect.bootstrap_servers, self.topic(table))

    def wait_for_records(self, table: str, count: int, timeout: float = 60) -> list[KafkaRecord]:
        return wait_for_records(self.connect.bootstrap_servers, self.topic(table), count, timeout)

    def status(self) -> dict[str, Any]:
        return self.connect.request("GET", f"/connectors/{self.name}/status")

    def delete(self) -> None:
        """Remove the connector and its replication slot (a slot left behind would hold back the cluster's WAL forever)."""
        self.connect.request("DELETE", f"/connectors/{self.name}")
        with closing(self.postgres.connect()) as conn, conn.cursor() as cur:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                cur.execute("SELECT active FROM pg_replication_slots WHERE slot_name = %s", (self.slot_name,))
                row = cur.fetchone()
                if row is None:
                    return
                if not row[0]:
                    cur.execute("SELECT pg_drop_replication_slot(%s)", (self.slot_name,))
                    return
                time.sleep(0.5)
        raise RuntimeError(f"replication slot {self.slot_name} is still in use 30 s after deleting {self.name} "
                           f"(worker log: {self.connect.log})")


def connector_config(postgres: PostgresServer, database: str, tables: list[str], name: str, *, schemas_enable: bool = True,
                     extra: dict[str, str] | None = None) -> dict[str, str]:
    """The connector's settings: Debezium's defaults apart from what names it, plus the schemaless converters if asked."""
    config = {
        "connector.class": POSTGRES_CONNECTOR,
        "tasks.max": "1",
        "plugin.name": "pgoutput",
        "database.hostname": postgres.host,
        "database.port": str(postgres.port),
        "database.user": postgres.superuser,
        "database.password": postgres.password,
        "database.dbname": database,
        "topic.prefix": name,
        "table.include.list": ",".join(t if "." in t else f"public.{t}" for t in tables),
        # Slots are per cluster, publications per database: both named after the connector so that tests never share one.
        "slot.name": name,
        "publication.name": f"{name}_publication",
        "notification.enabled.channels": "sink",
        "notification.sink.topic.name": f"{name}.notifications",
    }
    if not schemas_enable:
        for side in ("key", "value"):
            config[f"{side}.converter"] = "org.apache.kafka.connect.json.JsonConverter"
            config[f"{side}.converter.schemas.enable"] = "false"
    return {**config, **(extra or {})}


def _notification_types(connect: KafkaConnect, topic: str) -> list[str]:
    """The `type` of each "Initial Snapshot" notification so far (in either converter shape)."""
    if not topic_exists(connect.bootstrap_servers, topic):
        return []
    types = []
    for record in read_topic(connect.bootstrap_servers, topic):
        if record.value is None:
            continue
        body = json.loads(record.value)
        body = body.get("payload", body) if isinstance(body, dict) else body
        if body.get("aggregate_type") == "Initial Snapshot":
            types.append(body.get("type"))
    return types


def register_postgres_connector(connect: KafkaConnect, postgres: PostgresServer, database: str, tables: list[str], *,
                                schemas_enable: bool = True, extra: dict[str, str] | None = None, name: str | None = None,
                                timeout: float = 120) -> PostgresConnector:
    """Register a connector for `tables` of `database` and return once its initial snapshot is done.

    `name` (default: unique) is also its topic prefix, slot and publication name: keep it unique in the session."""
    name = name or f"dbz_{uuid.uuid4().hex[:12]}"
    connector = PostgresConnector(name, name, name, database, connect, postgres)
    connect.request("PUT", f"/connectors/{name}/config",
                    connector_config(postgres, database, tables, name, schemas_enable=schemas_enable, extra=extra))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = connect.request("GET", f"/connectors/{name}/status")
        failed = [t for t in [status["connector"], *status.get("tasks", [])] if t.get("state") == "FAILED"]
        if failed:
            raise RuntimeError(f"connector {name} failed: {failed[0].get('trace', failed[0])} (worker log: {connect.log})")
        types = _notification_types(connect, connector.notifications_topic)
        if "ABORTED" in types:
            raise RuntimeError(f"the initial snapshot of {name} was aborted (worker log: {connect.log})")
        if SNAPSHOT_DONE.intersection(types):
            return connector
        time.sleep(0.5)
    raise RuntimeError(f"the initial snapshot of {name} was not done after {timeout:.0f} s (worker log: {connect.log})")
