"""A single Kafka broker in KRaft mode (one process, broker and controller combined) on free loopback ports.

The log dir is formatted first, as `kafka-storage format` does (kafka.tools.StorageTool, with a
random cluster id), then kafka.Kafka runs with settings a one-node cluster needs (replication factor 1
for the internal topics). Topics are created automatically on first write, with one partition.
"""

from __future__ import annotations

import base64
import os
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path

from tests.servers.jars import kafka_classpath, write_log4j_config
from tests.servers.processes import Processes, free_port, java_command, port_open, wait_until


@dataclass(frozen=True)
class KafkaBroker:
    bootstrap_servers: str
    cluster_id: str
    log_dir: Path
    log: Path


def random_cluster_id() -> str:
    """A cluster id in Kafka's own form (a UUID as 22 characters of URL-safe base64), like `kafka-storage random-uuid`.

    Never one starting with '-': the storage tool's argument parser would take it for an option (one start in 64 failed
    so); Kafka's own random-uuid avoids those too."""
    while True:
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not cluster_id.startswith("-"):
            return cluster_id


def broker_properties(port: int, controller_port: int, log_dir: Path) -> dict[str, str]:
    return {
        "process.roles": "broker,controller",
        "node.id": "1",
        "controller.quorum.voters": f"1@127.0.0.1:{controller_port}",
        "listeners": f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}",
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
        "log.dirs": str(log_dir),
        "num.partitions": "1",
        "auto.create.topics.enable": "true",
        # One node: every internal topic has one replica, and few partitions so that they are created fast.
        "offsets.topic.replication.factor": "1",
        "offsets.topic.num.partitions": "1",
        "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1",
        "transaction.state.log.num.partitions": "1",
        "share.coordinator.state.topic.replication.factor": "1",
        "share.coordinator.state.topic.min.isr": "1",
        "group.initial.rebalance.delay.ms": "0",
        "num.network.threads": "2",
        "num.io.threads": "2",
    }


def _serving(port: int) -> bool:
    """The broker listens and has registered itself with the controller (it is in the cluster's metadata)."""
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient

    if not port_open(port):
        return False
    try:
        metadata = AdminClient({"bootstrap.servers": f"127.0.0.1:{port}", "log_level": 0}).list_topics(timeout=2)
    except KafkaException:
        return False
    return 1 in metadata.brokers


def start_kafka(processes: Processes, heap: str = "512m") -> KafkaBroker:
    """Format a fresh log dir and start the broker; it stops with the other processes."""
    classpath = kafka_classpath()
    log4j = write_log4j_config(processes.work_dir)
    port, controller_port = free_port(), free_port()
    log_dir = processes.work_dir / "kafka-logs"
    config = processes.work_dir / "kafka.properties"
    config.write_text("".join(f"{k}={v}\n" for k, v in broker_properties(port, controller_port, log_dir).items()))
    cluster_id = random_cluster_id()
    env = dict(os.environ)
    format_log = processes.work_dir / "kafka-storage-format.log"
    with open(format_log, "wb") as out:
        result = subprocess.run(java_command(classpath, "kafka.tools.StorageTool", "format", "-t", cluster_id, "-c", str(config),
                                             heap="128m", log4j_config=log4j),
                                stdout=out, stderr=subprocess.STDOUT, env=env, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"formatting Kafka's log dir failed (log: {format_log}):\n{format_log.read_text(errors='replace')}")
    process = processes.start("kafka", java_command(classpath, "kafka.Kafka", str(config), heap=heap, log4j_config=log4j), env)
    bootstrap = f"127.0.0.1:{port}"
    wait_until(process, lambda: _serving(port), timeout=120)
    return KafkaBroker(bootstrap, cluster_id, log_dir, process.log)
