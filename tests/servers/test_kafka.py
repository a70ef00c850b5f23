"""The shared Kafka broker is real: records produced through it are read back with their keys, values, partitions and offsets."""

from __future__ import annotations

import uuid

from tests.servers.kafka import KafkaBroker
from tests.servers.kafka_client import create_topic, produce, read_topic, topic_exists


def test_produce_and_read_back(kafka_broker: KafkaBroker) -> None:
    topic = f"test-{uuid.uuid4().hex[:8]}"
    create_topic(kafka_broker.bootstrap_servers, topic, partitions=2)
    produce(kafka_broker.bootstrap_servers, topic, [(b"k1", b"v1"), (b"k2", b'{"a": 1}')], partition=0)
    produce(kafka_broker.bootstrap_servers, topic, [(b"k1", None), (None, b"\x00\xff binary")], partition=1)

    records = read_topic(kafka_broker.bootstrap_servers, topic)

    assert [(r.partition, r.offset, r.key, r.value) for r in records] == [
        (0, 0, b"k1", b"v1"),
        (0, 1, b"k2", b'{"a": 1}'),
        (1, 0, b"k1", None),  # a tombstone: a record with a key and no value
        (1, 1, None, b"\x00\xff binary"),
    ]
    assert all(r.topic == topic and r.timestamp_ms > 0 for r in records)


def test_topics_are_created_on_first_write(kafka_broker: KafkaBroker) -> None:
    topic = f"auto-{uuid.uuid4().hex[:8]}"
    assert not topic_exists(kafka_broker.bootstrap_servers, topic)
    produce(kafka_broker.bootstrap_servers, topic, [(b"k", b"v")])
    assert [(r.partition, r.offset, r.value) for r in read_topic(kafka_broker.bootstrap_servers, topic)] == [(0, 0, b"v")]


def test_reading_twice_gives_the_same_records(kafka_broker: KafkaBroker) -> None:
    # Reads use no consumer group and commit nothing: any test can re-read a topic from its start.
    topic = f"twice-{uuid.uuid4().hex[:8]}"
    produce(kafka_broker.bootstrap_servers, topic, [(str(i).encode(), str(i).encode()) for i in range(50)])
    first = read_topic(kafka_broker.bootstrap_servers, topic)
    assert len(first) == 50 and first == read_topic(kafka_broker.bootstrap_servers, topic)
