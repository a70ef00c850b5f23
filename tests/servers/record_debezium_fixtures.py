"""Regenerate tests/fixtures/debezium/*.jsonl from a real capture: `.venv/bin/python -m tests.servers.record_debezium_fixtures`.

Starts PostgreSQL, Kafka and Kafka Connect with Debezium (`make test-deps` first), runs the CDC
workload (tests/servers/cdc_workload.py) once with Debezium's default JsonConverter (schema + payload)
and once schemaless, and the TOAST workload (tests/servers/toast_workload.py) with the default converter,
and writes every Kafka record of each run, one JSON object a line, tombstones included.
Arguments: the file names to record (default: all).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType

from tests.servers import cdc_workload, toast_workload
from tests.servers.capture import capture_workload
from tests.servers.connect import start_kafka_connect
from tests.servers.kafka import start_kafka
from tests.servers.postgres import remove_cluster, start_postgres
from tests.servers.processes import PROJECT_ROOT, Processes

FIXTURES = PROJECT_ROOT / "tests" / "fixtures" / "debezium"
# file name -> (database and connector name, JsonConverter schemas.enable, workload)
CAPTURES: dict[str, tuple[str, bool, ModuleType]] = {
    "postgres_default.jsonl": ("shop", True, cdc_workload),
    "postgres_schemaless.jsonl": ("shop_schemaless", False, cdc_workload),
    "postgres_toast.jsonl": ("shop_toast", True, toast_workload),
}


def write_jsonl(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(record, ensure_ascii=False, sort_keys=False) + "\n" for record in records))


def main(files: list[str]) -> None:
    work_dir = Path(tempfile.mkdtemp(prefix="lakeops-record-debezium-"))
    processes = Processes(work_dir)
    postgres = None
    try:
        postgres = start_postgres(processes)
        connect = start_kafka_connect(processes, start_kafka(processes))
        FIXTURES.mkdir(parents=True, exist_ok=True)
        for file_name, (name, schemas_enable, workload) in CAPTURES.items():
            if files and file_name not in files:
                continue
            database = postgres.create_database(name=name)
            records = capture_workload(connect, postgres, database, schemas_enable=schemas_enable, name=name,
                                       workload=workload)
            write_jsonl(FIXTURES / file_name, records)
            print(f"{FIXTURES / file_name}: {len(records)} records")
    finally:
        processes.stop_all()
        if postgres is not None:
            remove_cluster(postgres)
    shutil.rmtree(work_dir, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
