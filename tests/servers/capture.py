"""Run the CDC workload through a real Debezium connector and return what it wrote to Kafka, as JSON-ready records."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

from tests.servers import cdc_workload
from tests.servers.connect import KafkaConnect
from tests.servers.debezium import register_postgres_connector
from tests.servers.kafka_client import KafkaRecord
from tests.servers.postgres import PostgresServer


def as_json(record: KafkaRecord) -> dict[str, Any]:
    """One Kafka record with its key and value parsed from the converter's JSON (a tombstone's value is None)."""
    return {
        "topic": record.topic,
        "partition": record.partition,
        "offset": record.offset,
        "timestamp_ms": record.timestamp_ms,
        "key": None if record.key is None else json.loads(record.key),
        "value": None if record.value is None else json.loads(record.value),
    }


def capture_workload(connect: KafkaConnect, postgres: PostgresServer, database: str, *, schemas_enable: bool = True,
                     name: str | None = None, workload: ModuleType = cdc_workload) -> list[dict[str, Any]]:
    """Create the workload's table in `database`, register a connector (snapshot), run the changes, read every record.
    workload: a module with TABLE, create_table, run_changes and EXPECTED_RECORDS (tests/servers/cdc_workload.py)."""
    workload.create_table(postgres, database)
    connector = register_postgres_connector(connect, postgres, database, [workload.TABLE], schemas_enable=schemas_enable,
                                            name=name)
    try:
        workload.run_changes(postgres, database)
        records = connector.wait_for_records(workload.TABLE, workload.EXPECTED_RECORDS)
    finally:
        connector.delete()
    return [as_json(record) for record in records]
