"""Create topics, produce, and read back every record of a topic (key and value bytes, partition, offset) with confluent-kafka.

Reads use assigned partitions and no consumer group: they commit nothing and leave no state behind,
so any test can read any topic from its first offset as often as it likes.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

QUIET = {"log_level": 0}


@dataclass(frozen=True)
class KafkaRecord:
    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    timestamp_ms: int


def create_topic(bootstrap_servers: str, topic: str, partitions: int = 1, config: dict[str, str] | None = None) -> None:
    """Create `topic` with replication factor 1 and wait until the broker has it."""
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap_servers, **QUIET})
    futures = admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1, config=config or {})])
    futures[topic].result(timeout=30)


def topic_exists(bootstrap_servers: str, topic: str) -> bool:
    from confluent_kafka.admin import AdminClient

    metadata = AdminClient({"bootstrap.servers": bootstrap_servers, **QUIET}).list_topics(timeout=10)
    found = metadata.topics.get(topic)
    return found is not None and found.error is None


def produce(bootstrap_servers: str, topic: str, records: Iterable[tuple[bytes | None, bytes | None]],
            partition: int | None = None) -> None:
    """Write (key, value) pairs and wait until the broker acknowledged every one (acks=all)."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap_servers, "acks": "all", "enable.idempotence": True, **QUIET})
    errors: list[str] = []

    def delivered(error, message) -> None:
        if error is not None:
            errors.append(str(error))

    for key, value in records:
        kwargs = {} if partition is None else {"partition": partition}
        producer.produce(topic, key=key, value=value, on_delivery=delivered, **kwargs)
    remaining = producer.flush(30)
    if remaining or errors:
        raise RuntimeError(f"producing to {topic} failed: {remaining} undelivered, errors {errors}")


def read_topic(bootstrap_servers: str, topic: str, timeout: float = 30) -> list[KafkaRecord]:
    """Every record the topic holds now, in partition then offset order; tombstones have value None."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap_servers, "group.id": f"lakeops-tests-{uuid.uuid4().hex}",
                         "enable.auto.commit": False, "enable.partition.eof": True, **QUIET})
    try:
        metadata = consumer.list_topics(topic, timeout=10).topics[topic]
        if metadata.error is not None:
            raise RuntimeError(f"topic {topic} cannot be read: {metadata.error}")
        ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in metadata.partitions}
        pending = {p for p, end in ends.items() if end > 0}
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in pending])
        records: list[KafkaRecord] = []
        deadline = time.monotonic() + timeout
        while pending:
            if time.monotonic() > deadline:
                raise RuntimeError(f"reading {topic} timed out: partitions {sorted(pending)} not read up to {ends}")
            message = consumer.poll(1.0)
            if message is None:
                continue
            if message.error() is not None:
                if message.error().code() == KafkaError._PARTITION_EOF:
                    pending.discard(message.partition())
                    continue
                raise RuntimeError(f"reading {topic} failed: {message.error()}")
            if message.offset() < ends[message.partition()]:
                records.append(KafkaRecord(topic, message.partition(), message.offset(), message.key(), message.value(),
                                           message.timestamp()[1]))
            if message.offset() + 1 >= ends[message.partition()]:
                pending.discard(message.partition())
        return sorted(records, key=lambda r: (r.partition, r.offset))
    finally:
        consumer.close()


def wait_for_records(bootstrap_servers: str, topic: str, count: int, timeout: float = 60) -> list[KafkaRecord]:
    """Read `topic` until it holds at least `count` records (it may not exist yet); fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    records: list[KafkaRecord] = []
    while time.monotonic() < deadline:
        if topic_exists(bootstrap_servers, topic):
            records = read_topic(bootstrap_servers, topic)
            if len(records) >= count:
                return records
        time.sleep(0.5)
    raise RuntimeError(f"topic {topic} holds {len(records)} records after {timeout:.0f} s, expected at least {count}")
