"""A Kafka Connect standalone worker (org.apache.kafka.connect.cli.ConnectStandalone) writing to the test broker.

Its converters are the ones Debezium's deployments use by default: JsonConverter for keys and values
with `schemas.enable=true`. Connectors are added and removed through its REST API on a free port;
their source offsets live in a file of the worker's own folder.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.servers.jars import kafka_classpath, write_log4j_config
from tests.servers.kafka import KafkaBroker
from tests.servers.processes import Processes, free_port, http_json, java_command, wait_until

POSTGRES_CONNECTOR = "io.debezium.connector.postgresql.PostgresConnector"


@dataclass(frozen=True)
class KafkaConnect:
    rest_url: str
    bootstrap_servers: str
    log: Path

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """Call the REST API; an error answer raises with its status, message and the worker's log path."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.rest_url}{path}", data=data, method=method,
                                         headers={"Content-Type": "application/json", "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                payload = response.read()
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"Kafka Connect {method} {path} answered {e.code}: {e.read().decode(errors='replace')} "
                               f"(worker log: {self.log})") from e
        return json.loads(payload) if payload else None


def worker_properties(bootstrap_servers: str, rest_port: int, work_dir: Path) -> dict[str, str]:
    return {
        "bootstrap.servers": bootstrap_servers,
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "key.converter.schemas.enable": "true",
        "value.converter.schemas.enable": "true",
        "offset.storage.file.filename": str(work_dir / "connect.offsets"),
        "offset.flush.interval.ms": "1000",
        "listeners": f"http://127.0.0.1:{rest_port}",
        "rest.advertised.host.name": "127.0.0.1",
        "rest.advertised.port": str(rest_port),
        # Plugins come from the classpath, each declared by its jar's service manifest: no reflective scan at start-up.
        "plugin.discovery": "service_load",
        "task.shutdown.graceful.timeout.ms": "5000",
    }


def _serving(rest_url: str) -> bool:
    plugins = http_json(f"{rest_url}/connector-plugins")
    return any(plugin.get("class") == POSTGRES_CONNECTOR for plugin in plugins)


def start_kafka_connect(processes: Processes, broker: KafkaBroker, heap: str = "512m") -> KafkaConnect:
    """Start the worker with no connector; it is ready when its REST API lists Debezium's PostgreSQL connector."""
    port = free_port()
    work_dir = processes.work_dir / "connect"
    work_dir.mkdir(exist_ok=True)
    config = work_dir / "worker.properties"
    config.write_text("".join(f"{k}={v}\n" for k, v in worker_properties(broker.bootstrap_servers, port, work_dir).items()))
    command = java_command(kafka_classpath(), "org.apache.kafka.connect.cli.ConnectStandalone", str(config), heap=heap,
                           log4j_config=write_log4j_config(processes.work_dir))
    process = processes.start("kafka-connect", command, dict(os.environ))
    rest_url = f"http://127.0.0.1:{port}"
    wait_until(process, lambda: _serving(rest_url), timeout=180)
    return KafkaConnect(rest_url, broker.bootstrap_servers, process.log)
