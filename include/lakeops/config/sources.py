"""Where a table's input comes from and how it is read: a Kafka topic instead of the landing folder, how
Debezium's change events encode their values when the event carries no schema, and how JSON events map
onto the table's columns."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lakeops.exceptions import ConfigError

STARTING_OFFSETS = ("earliest", "latest")
DECIMAL_MODES = ("precise", "string", "double")
TIME_PRECISION_MODES = ("adaptive", "adaptive_time_microseconds", "connect")
BINARY_MODES = ("bytes", "base64", "base64-url-safe", "hex")
TEMPORAL_UNITS = ("days", "millis", "micros", "nanos")
TRUNCATE_POLICIES = ("quarantine", "apply", "fail")
UNAVAILABLE_PLACEHOLDER = "__debezium_unavailable_value"
"""Debezium's default unavailable.value.placeholder (PostgreSQL's unchanged TOASTed values, Oracle's LOBs)."""
_TOPIC = re.compile(r"^[A-Za-z0-9._-]{1,249}$")
# Options lakeops sets itself from the other keys: giving them again would contradict them.
_OWN_OPTIONS = ("subscribe", "subscribePattern", "assign", "startingOffsets", "endingOffsets", "kafka.bootstrap.servers",
                "maxOffsetsPerTrigger", "kafka.group.id", "kafka.enable.auto.commit")


@dataclass(frozen=True)
class KafkaSourceConfig:
    """A Kafka topic as the table's input, instead of its landing folder (section ingest.kafka). Batch runs read
    from the offsets the table's last commit recorded up to the offsets that are latest when the run starts;
    streaming reads it with Spark's Kafka source. Each commit records the offsets it read up to in its snapshot
    summary (lakeops.kafka.offsets.<topic>), in the same commit as the rows."""

    topic: str
    """The topic to read, e.g. shop.public.orders (Debezium names topics <topic.prefix>.<schema>.<table>)."""
    bootstrap_servers: str
    """host:port[,host:port...] of the brokers; ${VAR} reads the environment."""
    starting_offsets: str = "earliest"
    """Where a table with no recorded offsets starts: earliest (the whole retained topic, e.g. a Debezium snapshot)
    or latest (only what arrives from now on)."""
    max_records_per_batch: int = 1_000_000
    """Records one batch (or one micro-batch) reads at most, spread over the partitions; bounds a catch-up."""
    options: dict[str, str] = field(default_factory=dict)
    """Further options of Spark's Kafka source, e.g. kafka.security.protocol: SASL_SSL; the kafka.* ones also
    configure the client that reads the latest offsets. Put secrets in the environment (${VAR}), not in the file."""

    def __post_init__(self) -> None:
        if not _TOPIC.match(self.topic or ""):
            raise ConfigError(f"ingest.kafka.topic: {self.topic!r} is not a Kafka topic name; use letters, digits, '.', '_' "
                              "and '-', e.g. shop.public.orders")
        if not self.bootstrap_servers or any(":" not in s for s in self.bootstrap_servers.split(",")):
            raise ConfigError(f"ingest.kafka.bootstrap_servers: {self.bootstrap_servers!r} must be host:port[,host:port...], "
                              "e.g. broker-1:9092,broker-2:9092")
        if self.starting_offsets not in STARTING_OFFSETS:
            raise ConfigError(f"ingest.kafka.starting_offsets: {self.starting_offsets!r} is not a starting point; use "
                              "earliest (everything the topic retains) or latest (from now on)")
        if isinstance(self.max_records_per_batch, bool) or not 1 <= self.max_records_per_batch <= 100_000_000:
            raise ConfigError(f"ingest.kafka.max_records_per_batch: {self.max_records_per_batch!r} must be a whole number "
                              "from 1 to 100000000, e.g. 1000000")
        for key in self.options:
            if key in _OWN_OPTIONS:
                raise ConfigError(f"ingest.kafka.options: {key!r} is set by lakeops from topic, bootstrap_servers, "
                                  "starting_offsets and max_records_per_batch; remove it")


@dataclass(frozen=True)
class CdcConfig:
    """How Debezium change events are read and applied (section ingest.cdc). The encodings matter mostly for events
    without a schema part (the JsonConverter with schemas.enable=false): with one, each field names its own logical
    type, except decimals sent as strings or doubles (decimal_handling_mode)."""

    decimal_handling_mode: str = "precise"
    """The connector's decimal.handling.mode: precise (base64 bytes, the scale of the target column), string or
    double. Also read with a schema part: there a decimal sent as a string or a double names no logical type, so
    only this setting tells it from a source column whose type changed (which is quarantined)."""
    time_precision_mode: str = "adaptive"
    """The connector's time.precision.mode: adaptive or adaptive_time_microseconds (timestamps in microseconds, except
    the columns listed in temporal_units) or connect (timestamps and times in milliseconds)."""
    binary_handling_mode: str = "bytes"
    """The connector's binary.handling.mode: bytes (base64 in JSON), base64, base64-url-safe or hex."""
    temporal_units: dict[str, str] = field(default_factory=dict)
    """Per column, the unit a schemaless integer arrives in when it differs from time_precision_mode: days, millis,
    micros or nanos. E.g. {placed_local: millis} for a PostgreSQL timestamp(3) column under adaptive."""
    truncate: str = "quarantine"
    """What a truncate event (op t) does: quarantine (it lands in the quarantine table with the reason; nothing is
    deleted), apply (every row the table held before it is deleted, in the same commit as the batch's other
    changes) or fail (the batch fails and the table is left as it was)."""
    unavailable_value_placeholder: str = UNAVAILABLE_PLACEHOLDER
    """The connector's unavailable.value.placeholder: what it sends for a value the database did not log (an
    unchanged TOASTed column of PostgreSQL under the default replica identity). Such a column keeps the value the
    table holds; "hex:" followed by hex digits gives the placeholder's bytes, as in Debezium."""

    def __post_init__(self) -> None:
        choices = {"decimal_handling_mode": DECIMAL_MODES, "time_precision_mode": TIME_PRECISION_MODES,
                   "binary_handling_mode": BINARY_MODES, "truncate": TRUNCATE_POLICIES}
        for key, allowed in choices.items():
            if getattr(self, key) not in allowed:
                raise ConfigError(f"ingest.cdc.{key}: {getattr(self, key)!r} is not one of {', '.join(allowed)}")
        for column, unit in self.temporal_units.items():
            if unit not in TEMPORAL_UNITS:
                raise ConfigError(f"ingest.cdc.temporal_units.{column}: {unit!r} is not a unit; use one of "
                                  f"{', '.join(TEMPORAL_UNITS)}")
        placeholder = self.unavailable_value_placeholder
        if not isinstance(placeholder, str) or not placeholder:
            raise ConfigError(f"ingest.cdc.unavailable_value_placeholder: {placeholder!r} must be the connector's "
                              f"unavailable.value.placeholder, e.g. {UNAVAILABLE_PLACEHOLDER}")
        if placeholder.startswith("hex:") and not re.fullmatch(r"(?:[0-9A-Fa-f]{2})+", placeholder[4:]):
            raise ConfigError(f"ingest.cdc.unavailable_value_placeholder: {placeholder!r} starts with hex: but the rest is "
                              "not an even number of hex digits, e.g. hex:00ff")

    @property
    def placeholder_bytes(self) -> bytes:
        """The placeholder as the connector sends it for a binary column (and, decoded, for a text column)."""
        placeholder = self.unavailable_value_placeholder
        if placeholder.startswith("hex:"):
            return bytes.fromhex(placeholder[4:])
        return placeholder.encode()

    def unit_of(self, column: str, default: str) -> str:
        """The unit a schemaless integer of `column` arrives in."""
        if column in self.temporal_units:
            return self.temporal_units[column]
        return "millis" if self.time_precision_mode == "connect" and default != "days" else default
