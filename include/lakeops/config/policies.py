"""The maintenance policies of a table: zonemap columns, compaction, retention and health thresholds.
Each may be set in the config's `defaults`, in the table's own properties and in its config entry."""

from __future__ import annotations

from dataclasses import dataclass

from lakeops.exceptions import ConfigError


@dataclass(frozen=True)
class ZonemapConfig:
    columns: tuple[str, ...] = ()
    bloom_columns: tuple[str, ...] = ()
    hot_memory_mb: int = 64
    """Bound of the in-memory (hot) micro/hourly entries per process; older ranges are read from the daily master on disk."""

    def __post_init__(self) -> None:
        if isinstance(self.hot_memory_mb, bool) or not isinstance(self.hot_memory_mb, int) or not 1 <= self.hot_memory_mb <= 65536:
            raise ConfigError(f"zonemap.hot_memory_mb: {self.hot_memory_mb!r} must be a whole number of MiB between 1 and 65536; "
                              "64 holds the entries of about 100,000 files")


PARTIAL_PROGRESS_MODES = ("on_conflict", "always")
COMPACTION_TRIGGERS = ("watch", "schedule")


@dataclass(frozen=True)
class CompactionPolicy:
    trigger: str = "watch"
    """What starts a compaction of the table: watch (the triggerer's health watch, compact_on_health, when a
    new snapshot puts the table over a threshold) or schedule (compact_tables' sensors, every 10 minutes)."""
    target_file_size_mb: int = 128
    small_file_fraction: float = 0.75
    min_small_files: int = 100
    delete_file_threshold: int = 10
    delete_ratio_threshold: float = 0.3
    max_bytes_per_run_mb: int = 10240
    fragment_fraction: float = 0.125
    """Amoro's fragment: a file under target x 1/8."""
    min_fragment_files: int = 12
    """Amoro's minor-optimize trigger: 12 fragment files in a partition."""
    manifest_rewrite_threshold: int = 100
    max_concurrent_file_group_rewrites: int = 2
    max_commits_per_call: int = 3
    """Iceberg's partial-progress.max-commits (default 10): with partial progress on, one call's file groups are
    committed in at most this many commits, so a group that conflicts sinks at most a third of the call (the
    runner's retry redoes it); each commit rewrites the table metadata, which costs more than rewriting a small
    partition."""
    partial_progress: str = "on_conflict"
    """When a rewrite call uses Iceberg's partial progress. "on_conflict": the first attempt commits the call
    once without it, and the attempts after a conflicting commit use it, so a group that conflicts again is left
    out alone; "always": every attempt uses it. Iceberg 1.11's partial-progress committer spins a driver core
    while file groups are being rewritten (apache/iceberg#12086): on the compaction benchmark's table one call of
    14 partitions cost 2.05 CPU s with it (3 commits) and 1.56 without (benchmarks/results/compaction_call.md). A
    conflict needs a writer deleting rows of a file being rewritten in the seconds a call takes; its retry plans
    again on the new state."""
    max_file_amplification: float | None = 1.5
    """Whole table: compact when a full scan opens this many times the files of a compacted copy
    (lakeops.health.layout), folding the partitions that save the most files first; None: off."""
    max_dangling_delete_files: int = 100
    """A data rewrite leaves the replaced files' delete files dangling: readers skip them, but every
    scan's planning still reads their manifest entries. Once this many have piled up, the next run
    drops them all after its rewrites (lakeops.spark.dangling: one metadata-only commit, no Spark
    job), instead of paying a commit on every run; 0 drops what each data rewrite leaves at once.
    A hundred entries cost a scan's planning next to nothing (the compaction benchmark's tuned cron
    reads at fresh speed with 200)."""

    def __post_init__(self) -> None:
        if self.trigger not in COMPACTION_TRIGGERS:
            raise ConfigError(f"compaction.trigger: {self.trigger!r} is not a trigger; use watch (the triggerer's health "
                              "watch starts compact_on_health) or schedule (compact_tables checks every 10 minutes)")
        if self.target_file_size_mb <= 0:
            raise ConfigError(f"compaction.target_file_size_mb: {self.target_file_size_mb} must be positive; 128 is Iceberg's default")
        for key in ("small_file_fraction", "delete_ratio_threshold"):
            value = getattr(self, key)
            if not 0 < value <= 1:
                raise ConfigError(f"compaction.{key}: {value} must be in (0, 1]")
        for key in ("min_small_files", "delete_file_threshold", "max_bytes_per_run_mb"):
            if getattr(self, key) < 1:
                raise ConfigError(f"compaction.{key}: {getattr(self, key)} must be at least 1")
        if not 0 < self.fragment_fraction < self.small_file_fraction:
            raise ConfigError(f"compaction.fragment_fraction: {self.fragment_fraction} must be in (0, small_file_fraction "
                              f"{self.small_file_fraction}); Amoro's fragments are files under target/8 (0.125)")
        for key in ("min_fragment_files", "manifest_rewrite_threshold", "max_concurrent_file_group_rewrites",
                    "max_commits_per_call"):
            if getattr(self, key) < 1:
                raise ConfigError(f"compaction.{key}: {getattr(self, key)} must be at least 1")
        if self.partial_progress not in PARTIAL_PROGRESS_MODES:
            raise ConfigError(f"compaction.partial_progress: {self.partial_progress!r} is not one of "
                              f"{', '.join(PARTIAL_PROGRESS_MODES)}; on_conflict (the default) turns it on for the "
                              "retries after a conflicting commit")
        if self.max_dangling_delete_files < 0:
            raise ConfigError(f"compaction.max_dangling_delete_files: {self.max_dangling_delete_files} must be 0 or more "
                              "(0 drops dangling delete files on every run)")
        if self.max_file_amplification is not None and self.max_file_amplification <= 1.0:
            raise ConfigError(f"compaction.max_file_amplification: {self.max_file_amplification} must be above 1.0 "
                              "(1.0 is a freshly compacted table), e.g. 1.5; or null to turn the table-wide trigger off")


@dataclass(frozen=True)
class RetentionPolicy:
    max_snapshot_age_hours: int = 120
    min_snapshots: int = 1
    orphan_min_age_hours: int = 72
    protected_refs: tuple[str, ...] = ()
    streaming_checkpoints: tuple[str, ...] = ()
    """Checkpoint locations of Spark Structured Streaming queries that read the table as a source: the snapshots
    each has last processed and is processing are kept."""

    def __post_init__(self) -> None:
        if self.min_snapshots < 1:
            raise ConfigError(f"retention.min_snapshots: {self.min_snapshots} must be at least 1; the current snapshot is always kept")
        if self.orphan_min_age_hours < 24:
            raise ConfigError(
                f"retention.orphan_min_age_hours: {self.orphan_min_age_hours} is shorter than the safe minimum of 24 hours; "
                "files of writes still in flight would be deleted. Use 24 or more (Iceberg's default is 72)"
            )
        for location in self.streaming_checkpoints:
            if "://" not in location and not location.startswith("/"):
                raise ConfigError(f"retention.streaming_checkpoints: {location!r} is relative; give the checkpoint's "
                                  "absolute path or URI as the streaming query has it (e.g. s3://bucket/checkpoints/q1)")
        if self.max_snapshot_age_hours < 1:
            raise ConfigError(f"retention.max_snapshot_age_hours: {self.max_snapshot_age_hours} must be at least 1")


@dataclass(frozen=True)
class HealthThresholds:
    """When the health sensors fire for a partition (see README "Table health").

    max_read_amp_files 1.5: half of the data files drag a delete file along (file-scoped deletes
    and deletion vectors cap the figure at 2.0; partition-scoped ones grow without bound).
    max_read_amp_bytes unset: derived from compaction.delete_ratio_threshold (Iceberg's 0.3 gives
    1 / (1 - 0.3) = 1.43 bytes read per live byte). max_delete_files_per_hour 12: Amoro's minor
    optimizing trigger of 12 fragment files, as a rate.
    """

    max_read_amp_files: float = 1.5
    max_read_amp_bytes: float | None = None
    max_delete_files_per_hour: float = 12.0

    def __post_init__(self) -> None:
        for key in ("max_read_amp_files", "max_read_amp_bytes"):
            value = getattr(self, key)
            if value is not None and value <= 1.0:
                raise ConfigError(f"health.{key}: {value} must be above 1.0 (1.0 is a clean table), e.g. 1.5")
        if self.max_delete_files_per_hour <= 0:
            raise ConfigError(f"health.max_delete_files_per_hour: {self.max_delete_files_per_hour} must be positive, e.g. 12")


