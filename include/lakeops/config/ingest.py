"""How a table is ingested: batch or streaming, direct or staged commits, and the streaming query's settings."""

from __future__ import annotations

from dataclasses import dataclass

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
    is older than staging_max_age_hours."""

    format: str = "events"
    """What lands in the table's source folder: events (JSON lines, appended) or cdc (Debezium change events,
    merged on the table's key)."""
    mode: str = "batch"
    """How the table's landed files are ingested: "batch" (default; its ingest DAG, one batch per data interval) or
    "streaming" (its stream DAG, a Structured Streaming query). Each refuses the other's tables."""
    commit_mode: str = "direct"
    """"direct" (default): one Spark job per data interval writes and commits its files; "staged": `writers` jobs
    each write a disjoint share into the table's staging area, and one committer commits them all in one commit."""
    writers: int = 4
    """Parallel writer tasks per run in staged mode (default 4; ignored in direct mode)."""
    staging_max_age_hours: float = 24.0
    """Staging left by dead writers or a killed committer is deleted once older than this (default 24)."""

    def __post_init__(self) -> None:
        if self.format not in INGEST_FORMATS:
            raise ConfigError(f"ingest.format: {self.format!r} is not an ingest format; use events (JSON lines, appended) "
                              "or cdc (Debezium change events, merged on the table's key)")
        if self.format == "cdc" and (self.mode != "batch" or self.commit_mode != "direct"):
            raise ConfigError("ingest.format: cdc is merged by one batch job per data interval; use mode: batch and "
                              "commit_mode: direct (streaming and staged commits append events)")
        if self.mode not in INGEST_MODES:
            raise ConfigError(f"ingest.mode: {self.mode!r} is not an ingest mode; use batch (the ingest_events DAG, one "
                              "batch per data interval) or streaming (the stream_events DAGs)")
        if self.mode == "streaming" and self.commit_mode != "direct":
            raise ConfigError(f"ingest.commit_mode: {self.commit_mode!r} applies to batch ingest; a streaming query commits "
                              "each micro-batch itself. Use commit_mode: direct with mode: streaming")
        if self.commit_mode not in COMMIT_MODES:
            raise ConfigError(f"ingest.commit_mode: {self.commit_mode!r} is not a commit mode; use direct (each run commits "
                              "its own batch) or staged (parallel writers, one committer)")
        if isinstance(self.writers, bool) or not isinstance(self.writers, int) or not 1 <= self.writers <= MAX_WRITERS:
            raise ConfigError(f"ingest.writers: {self.writers!r} must be a whole number of writer tasks between 1 and "
                              f"{MAX_WRITERS}; each one is a Spark job, so keep it within the lakeops_spark pool's slots")
        if not 1 <= self.staging_max_age_hours <= 720:
            raise ConfigError(f"ingest.staging_max_age_hours: {self.staging_max_age_hours} must be between 1 and 720 hours; "
                              "staging younger than this is never deleted, so it must outlast the slowest writer-to-commit run")


