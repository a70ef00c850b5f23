"""Where the Kafka, Kafka Connect and Debezium jars are: build/kafka, resolved by `make test-deps` (include/jvm/kafka/pom.xml)."""

from __future__ import annotations

from pathlib import Path

from tests.servers.processes import PROJECT_ROOT, resolved_dir

LOG4J_CONFIG = """\
status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %X{connector.context}%m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = OUT
logger.kafka.name = kafka
logger.kafka.level = WARN
logger.kafkaapache.name = org.apache.kafka
logger.kafkaapache.level = WARN
logger.connect.name = org.apache.kafka.connect
logger.connect.level = INFO
logger.debezium.name = io.debezium
logger.debezium.level = INFO
"""


def kafka_classpath() -> list[Path]:
    """Every jar of build/kafka: the broker, the Connect runtime, Debezium's PostgreSQL connector and their dependencies."""
    directory = resolved_dir("LAKEOPS_TEST_KAFKA_DIR", PROJECT_ROOT / "build" / "kafka", "kafka_2.13-*.jar",
                             "make test-deps (include/jvm/kafka/pom.xml)")
    return sorted(directory.glob("*.jar"))


def write_log4j_config(work_dir: Path) -> Path:
    """A Log4j 2 configuration printing to stdout (the process's log file): Kafka's warnings, Connect's and Debezium's info."""
    path = work_dir / "log4j2.properties"
    if not path.exists():
        path.write_text(LOG4J_CONFIG)
    return path
