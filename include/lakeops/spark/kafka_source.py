"""Reading a table's Kafka topic with Spark: the topic's earliest and latest offsets (Kafka's Java client in the
driver JVM, configured like Spark's Kafka source), one offset range as a batch, and the topic as a stream. Every
record becomes (value, source_file = "kafka:<topic>/<partition>/<offset>") like a landed line, so parsing,
quarantine and commits are the same for both sources. Decisions (which range) come from lakeops.ingest.kafka."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lakeops.config.sources import KafkaSourceConfig
from lakeops.exceptions import IngestError
from lakeops.ingest.kafka import OffsetRange
from lakeops.spark.session import jvm

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

TIMEOUT_S = 30
DESERIALIZER = "org.apache.kafka.common.serialization.ByteArrayDeserializer"


def source_options(source: KafkaSourceConfig) -> dict[str, str]:
    """Options every read of the topic gets: the brokers and the user's own (kafka.security.protocol, ...)."""
    return {"kafka.bootstrap.servers": source.bootstrap_servers, **source.options}


def topic_offsets(spark: SparkSession, source: KafkaSourceConfig) -> tuple[dict[int, int], dict[int, int]]:
    """(earliest, latest) offset of every partition of the topic, read once in the driver."""
    gateway = jvm(spark)
    props = gateway.java.util.Properties()
    props.put("bootstrap.servers", source.bootstrap_servers)
    for key, value in source.options.items():
        if key.startswith("kafka."):
            props.put(key.removeprefix("kafka."), value)
    props.put("key.deserializer", DESERIALIZER)
    props.put("value.deserializer", DESERIALIZER)
    timeout = gateway.java.time.Duration.ofSeconds(TIMEOUT_S)
    consumer = gateway.org.apache.kafka.clients.consumer.KafkaConsumer(props)
    try:
        partitions = gateway.java.util.ArrayList()
        for info in consumer.partitionsFor(source.topic, timeout) or []:
            partitions.add(gateway.org.apache.kafka.common.TopicPartition(source.topic, info.partition()))
        if partitions.size() == 0:
            raise IngestError(f"Kafka topic {source.topic} does not exist on {source.bootstrap_servers} (or has no "
                              "partitions); check ingest.kafka.topic, or create the topic")
        begin, end = consumer.beginningOffsets(partitions, timeout), consumer.endOffsets(partitions, timeout)
        earliest = {int(tp.partition()): int(begin.get(tp)) for tp in partitions}
        latest = {int(tp.partition()): int(end.get(tp)) for tp in partitions}
    finally:
        consumer.close()
    return earliest, latest


def _as_lines(df: DataFrame) -> DataFrame:
    from pyspark.sql import functions as F

    return df.select(F.col("value").cast("string").alias("value"),
                     F.format_string("kafka:%s/%d/%d", "topic", "partition", "offset").alias("source_file"),
                     "partition", "offset")


def read_range(spark: SparkSession, source: KafkaSourceConfig, offsets: OffsetRange) -> DataFrame:
    """Exactly the records of `offsets` (value, source_file, partition, offset); tombstones have a null value."""
    reader = spark.read.format("kafka").option("subscribe", source.topic)
    for key, value in {**source_options(source), **offsets.spark_options()}.items():
        reader = reader.option(key, value)
    return _as_lines(reader.load())


def read_stream(spark: SparkSession, source: KafkaSourceConfig, starting: str) -> DataFrame:
    """The topic as a stream from `starting` (a fresh checkpoint only: an existing one resumes from its own offsets),
    at most max_records_per_batch records a micro-batch."""
    reader = (spark.readStream.format("kafka").option("subscribe", source.topic).option("startingOffsets", starting)
              .option("maxOffsetsPerTrigger", str(source.max_records_per_batch)).option("failOnDataLoss", "true"))
    for key, value in source_options(source).items():
        reader = reader.option(key, value)
    return _as_lines(reader.load())
