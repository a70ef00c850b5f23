"""How a table is ingested: batch or streaming, direct or staged commits, and the streaming query's settings."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lakeops.config.sources import CdcConfig, KafkaSourceConfig
from lakeops.exceptions import ConfigError

STREAM_RUNNERS = ("available_now", "supervised")
STREAM_MAX_RUN_SECONDS = 6 * 3600
"""Longest supervised run of a streaming query; the supervising DAG's task timeout is derived from it."""


@dataclass(frozen=True)
class StreamingConfig:
    """Streaming ingest of a table: a Structured Streaming query over the landing zone, run either as
    availableNow micro-batches per DAG run or as a supervised long-running query with a processing-time trigger."""

    checkpoint_location: str | None = None
    """Absolute path or URI of the query's checkpoint; default <warehouse>/_checkpoints/<namespace>/<table>,
    beside the table's folder and outside its location, so nothing that manages the table's files lists it."""
    max_files_per_trigger: int = 100
    """Landed files one micro-batch reads at most: bounds a batch after an outage (availableNow splits the backlog)."""
    trigger_interval_seconds: int = 15
    """Processing-time trigger of the long-running query: how often it looks for new files."""
    run_seconds: int = 3600
    """How long one supervised run lasts before it stops gracefully (the next run resumes from the checkpoint)."""
    stop_timeout_seconds: int = 120
    """At the end of a supervised run, how long to wait for the running micro-batch to finish before stopping anyway."""

    runner: str = "available_now"
    """How Airflow runs the query: available_now (a run every ingest interval drains what landed, then exits) or
    supervised (a long-running query restarted every run_seconds)."""

    def __post_init__(self) -> None:
        if self.runner not in STREAM_RUNNERS:
            raise ConfigError(f"streaming.runner: {self.runner!r} is not a runner; use available_now (a run per ingest "
                              "interval) or supervised (a long-running query)")
        location = self.checkpoint_location
        if location == "":
            object.__setattr__(self, "checkpoint_location", None)  # an unset ${VAR:-} in the file
        elif location is not None and "://" not in location and not location.startswith("/"):
            raise ConfigError(f"streaming.checkpoint_location: {location!r} is relative; use an absolute path or a URI "
                              "(e.g. s3a://bucket/checkpoints/events), or leave it unset for the warehouse default")
        bounds = {"max_files_per_trigger": (1, 100_000, "100"), "trigger_interval_seconds": (1, 3600, "15"),
                  "run_seconds": (10, STREAM_MAX_RUN_SECONDS, "3600"), "stop_timeout_seconds": (10, 3600, "120")}
        for key, (low, high, example) in bounds.items():
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ConfigError(f"streaming.{key}: {value!r} must be a whole number from {low} to {high}, e.g. {example}")
        if self.trigger_interval_seconds >= self.run_seconds:
            raise ConfigError(f"streaming.trigger_interval_seconds: {self.trigger_interval_seconds} must be shorter than "
                              f"streaming.run_seconds ({self.run_seconds}); a supervised run would end before its first trigger")


INGEST_FORMATS = ("events", "cdc")
INGEST_MODES = ("batch", "streaming")
COMMIT_MODES = ("direct", "staged")
MAX_WRITERS = 64
EVOLVE_POLICIES = ("none", "add_columns")
UNKNOWN_FIELD_POLICIES = ("ignore", "quarantine")
_JSON_PATH = re.compile(r"^\$((\.[A-Za-z_][A-Za-z0-9_]*)|(\['[^']+'\])|(\[[0-9]+\]))+$")


@dataclass(frozen=True)
class IngestConfig:
    """How a table is ingested (README "Streaming ingest", "Staged writers and one committer").

    mode: which DAGs ingest the table's landed files: batch (ingest_events, one batch per data
    interval) or streaming (stream_events / stream_events_supervisor). Exactly one may: both would
    commit every landed file twice under different batch ids, so each refuses the other's tables.

    direct: one Spark job per data interval writes its files and commits them itself.
    staged: `writers` Spark jobs each write a disjoint share of the interval's files into the
    table's staging area and publish a manifest; one committer commits them all in one commit.
    Staging left by dead writers (or a committer killed before its clean-up) is deleted once it
    is older than staging_max_age_hours. With mode streaming, direct commits each micro-batch through
    Spark's Iceberg writer, staged writes it in one pass with pyiceberg's file writer in the executors
    (lakeops.spark.one_pass_commit) and commits it with pyiceberg."""

    format: str = "events"
    """What lands in the table's source folder: events (JSON lines, appended) or cdc (Debezium change events,
    merged on the table's key)."""
    mode: str = "batch"
    """How the table's landed files are ingested: "batch" (default; its ingest DAG, one batch per data interval) or
    "streaming" (its stream DAG, a Structured Streaming query). Each refuses the other's tables."""
    commit_mode: str = "direct"
    """"direct" (default): one Spark job per data interval writes and commits its files; "staged": `writers` jobs
    each write a disjoint share into the table's staging area, and one committer commits them all in one commit.
    Streaming: direct caches each micro-batch's parsed rows and writes each table from the cache with Spark;
    staged writes both tables in one pass with pyiceberg's file writer (35 against 45 CPU s per million rows in the
    throughput benchmark; needs pyiceberg and pyarrow in the executors' Python)."""
    writers: int = 4
    """Parallel writer tasks per run in staged batch ingest (default 4; ignored in direct mode and in streaming)."""
    staging_max_age_hours: float = 24.0
    """Staging left by dead writers or a killed committer is deleted once older than this (default 24)."""
    kafka: KafkaSourceConfig | None = None
    """A Kafka topic to read instead of the landing folder (section ingest.kafka); unset: the landing folder."""
    cdc: CdcConfig = field(default_factory=CdcConfig)
    """How change events are decoded and truncates applied (section ingest.cdc; format cdc only)."""
    fields: dict[str, str] = field(default_factory=dict)
    """Events: column -> JSON path of its value in each line, e.g. {user_id: $.user.id, country: $.geo.country};
    a column not listed is read from the top-level field of its own name."""
    evolve: str = "none"
    """Schema drift: none (the table's columns stay as they are) or add_columns (a field the table lacks is added
    as a nullable column, typed from the event's schema or its JSON value, before the batch is written; a column
    Iceberg can widen, such as int to bigint or a decimal's precision, is widened)."""
    unknown_fields: str | None = None
    """A field the table has no column for, when evolve is none: ignore (dropped) or quarantine (the row goes to the
    quarantine with the field and its value). Default: ignore for events, quarantine for cdc (a new source column
    is then noticed, not lost)."""

    def __post_init__(self) -> None:
        if self.format not in INGEST_FORMATS:
            raise ConfigError(f"ingest.format: {self.format!r} is not an ingest format; use events (JSON lines, appended) "
                              "or cdc (Debezium change events, merged on the table's key)")
        if self.format == "cdc" and self.commit_mode != "direct":
            raise ConfigError("ingest.format: cdc is merged by one job per batch (or micro-batch); use commit_mode: direct "
                              "(staged writers append events)")
        if self.kafka is not None and self.commit_mode == "staged" and self.mode == "batch":
            raise ConfigError("ingest.commit_mode: staged splits landed files among writers; a Kafka source is read by one "
                              "job per batch. Use commit_mode: direct with ingest.kafka (or mode: streaming, whose "
                              "micro-batches staged mode writes in one pass)")
        if self.evolve not in EVOLVE_POLICIES:
            raise ConfigError(f"ingest.evolve: {self.evolve!r} is not a policy; use none (the table's columns stay) or "
                              "add_columns (new fields become columns)")
        if self.unknown_fields is not None and self.unknown_fields not in UNKNOWN_FIELD_POLICIES:
            raise ConfigError(f"ingest.unknown_fields: {self.unknown_fields!r} is not a policy; use ignore or quarantine "
                              "(or evolve: add_columns to add them as columns)")
        if self.fields and self.format != "events":
            raise ConfigError("ingest.fields maps JSON paths of events to columns; a cdc table takes its columns from the "
                              "change events' row images. Remove ingest.fields or use format: events")
        for column, path in self.fields.items():
            if not isinstance(path, str) or not _JSON_PATH.match(path):
                raise ConfigError(f"ingest.fields.{column}: {path!r} is not a JSON path lakeops reads; use $.a.b, "
                                  "$['a b'].c or $.items[0]")
        if self.mode not in INGEST_MODES:
            raise ConfigError(f"ingest.mode: {self.mode!r} is not an ingest mode; use batch (the ingest_events DAG, one "
                              "batch per data interval) or streaming (the stream_events DAGs)")
        if self.commit_mode not in COMMIT_MODES:
            raise ConfigError(f"ingest.commit_mode: {self.commit_mode!r} is not a commit mode; use direct (each run commits "
                              "its own batch) or staged (parallel writers, one committer)")
        if isinstance(self.writers, bool) or not isinstance(self.writers, int) or not 1 <= self.writers <= MAX_WRITERS:
            raise ConfigError(f"ingest.writers: {self.writers!r} must be a whole number of writer tasks between 1 and "
                              f"{MAX_WRITERS}; each one is a Spark job, so keep it within the lakeops_spark pool's slots")
        if not 1 <= self.staging_max_age_hours <= 720:
            raise ConfigError(f"ingest.staging_max_age_hours: {self.staging_max_age_hours} must be between 1 and 720 hours; "
                              "staging younger than this is never deleted, so it must outlast the slowest writer-to-commit run")



    @property
    def unknown_field_policy(self) -> str:
        """What happens to a field the table has no column for: add_columns, ignore or quarantine."""
        if self.evolve == "add_columns":
            return "add_columns"
        return self.unknown_fields or ("quarantine" if self.format == "cdc" else "ignore")
