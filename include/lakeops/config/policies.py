"""The maintenance policies of a table: zonemap columns, compaction, retention and health thresholds.
Each may be set in the config's `defaults`, in the table's own properties and in its config entry."""

from __future__ import annotations

from dataclasses import dataclass

from lakeops.exceptions import ConfigError


@dataclass(frozen=True)
class ZonemapConfig:
    columns: tuple[str, ...] = ()
    """Columns indexed by the zonemaps (min, max, null count per file), matched by field id; empty: no zonemap."""
    bloom_columns: tuple[str, ...] = ()
    """Of the zonemap columns, those that also get a Bloom filter per file (equality lookups on high-cardinality columns)."""
    bloom_hour_column: str = ""
    """A timestamp column: each file's Bloom filter then also holds every bloom_columns value paired with the hour it occurs
    in this column, so a lookup of a value over a few hours skips files that hold it only at other hours (late events
    make files span hours); about twice the filter bits. Empty: no hour pairs."""
    bloom_fpp: float = 0.00005
    """False-positive rate each file's Bloom filter is sized for (default 0.00005: a lookup among 2,000 files that
    min/max cannot tell apart reads about 0.1 extra file; 0.001 takes about 70% of the bits, 0.01 about half); from
    0.000001 to 0.1."""
    hot_memory_mb: int = 64
    """Bound of the index a process holds in memory (micro/hourly entries, the daily master's statistics); what does not fit
    is read from disk at each lookup."""
    consolidate_micro_files: int = 200
    """Micro zonemaps (one per commit) after which the next commit consolidates them into a new master at once, besides the
    hourly and daily runs: read-side planning stays bounded under a burst of commits (default 200, 1 to 100000)."""
    consolidate_micro_mb: int = 64
    """Total size of the micro zonemaps (MiB) after which the next commit consolidates them at once (default 64, 1 to
    65536)."""

    def __post_init__(self) -> None:
        fpp = self.bloom_fpp
        if isinstance(fpp, bool) or not isinstance(fpp, (int, float)) or not 0.000001 <= fpp <= 0.1:
            raise ConfigError(f"zonemap.bloom_fpp: {fpp!r} must be a false-positive rate between 0.000001 and 0.1, e.g. 0.00005 "
                              "(lower: fewer extra files read, more bytes per indexed file)")
        memory = self.hot_memory_mb
        if isinstance(memory, bool) or not isinstance(memory, int) or not 1 <= memory <= 65536:
            raise ConfigError(f"zonemap.hot_memory_mb: {self.hot_memory_mb!r} must be a whole number of MiB between 1 and 65536; "
                              "64 holds the statistics of about 100,000 files")
        for name, top, example in (("consolidate_micro_files", 100_000, 200), ("consolidate_micro_mb", 65536, 64)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
                raise ConfigError(f"zonemap.{name}: {value!r} must be a whole number between 1 and {top:,}, e.g. {example}")


PARTIAL_PROGRESS_MODES = ("on_conflict", "always")
COMPACTION_TRIGGERS = ("watch", "schedule")


@dataclass(frozen=True)
class CompactionPolicy:
    trigger: str = "watch"
    """What starts a compaction of the table: watch (the triggerer's health watch, compact_on_health, when a
    new snapshot puts the table over a threshold) or schedule (compact_tables' sensors, every 10 minutes)."""
    target_file_size_mb: int = 128
    """Size the rewrites aim for, and against which small files are judged (default 128; Iceberg's write.target-file-size-bytes
    sets it too)."""
    small_file_fraction: float = 0.75
    """A small file is under target_file_size_mb x this fraction (default 0.75; in (0, 1])."""
    min_small_files: int = 100
    """More small files than this in a partition trigger a data rewrite of it (default 100, at least 1)."""
    delete_file_threshold: int = 10
    """Applied delete files per data file (or in a partition, for a delete-file rewrite) that trigger a rewrite (default 10)."""
    delete_ratio_threshold: float = 0.3
    """Share of a partition's rows deleted that triggers a data rewrite, applying the deletes (default 0.3, Iceberg's; in (0,
    1])."""
    max_bytes_per_run_mb: int = 10240
    """Data one run rewrites at most; the rest is deferred to the next run, best gain first (default 10240)."""
    fragment_fraction: float = 0.125
    """A fragment is a data file under target_file_size_mb x this fraction (default 0.125, target/8)."""
    min_fragment_files: int = 12
    """Fragments in a partition that trigger a data rewrite of it (default 12)."""
    manifest_rewrite_threshold: int = 100
    """More data manifests than this trigger a manifest rewrite (default 100)."""
    max_concurrent_file_group_rewrites: int = 2
    """File groups one rewrite call rewrites in parallel (default 2)."""
    max_commits_per_call: int = 3
    """Iceberg's partial-progress.max-commits: with partial progress on, the most commits one rewrite call makes
    (default 3)."""
    partial_progress: str = "on_conflict"
    """When a rewrite call uses Iceberg's partial progress: "on_conflict" (default), only on the attempts after a
    conflicting commit; "always", on every attempt."""
    max_file_amplification: float | None = 1.5
    """Compact the whole table when a full scan opens this many times the files of a compacted copy, the partitions
    that save the most files first (default 1.5; None: off)."""
    max_dangling_delete_files: int = 100
    """Dangling delete files the table may hold after a run's rewrites before the run drops them all, in one
    metadata-only commit (default 100; 0: every run that rewrites data drops what it leaves)."""

    def __post_init__(self) -> None:
        if self.trigger not in COMPACTION_TRIGGERS:
            raise ConfigError(f"compaction.trigger: {self.trigger!r} is not a trigger; use watch (the triggerer's health "
                              "watch starts compact_on_health) or schedule (compact_tables checks every 10 minutes)")
        if self.target_file_size_mb <= 0:
            raise ConfigError(f"compaction.target_file_size_mb: {self.target_file_size_mb} must be positive; "
                              "128 is Iceberg's default")
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
    """Snapshots older than this expire, counted back from the run's date (default 120; Iceberg's history.expire.max-snapshot-
    age-ms sets it too)."""
    min_snapshots: int = 1
    """Snapshots kept per branch whatever their age (default 1; Iceberg's history.expire.min-snapshots-to-keep sets it too)."""
    orphan_min_age_hours: int = 72
    """Files in the table's location that no snapshot references are removed once older than this (default 72; at least 24)."""
    protected_refs: tuple[str, ...] = ()
    """Branches and tags whose heads are kept and reported (every ref head is kept; these are checked to exist)."""
    streaming_checkpoints: tuple[str, ...] = ()
    """Checkpoint locations of Spark Structured Streaming queries that read the table as a source: the snapshots
    each has last processed and is processing are kept."""

    def __post_init__(self) -> None:
        if self.min_snapshots < 1:
            raise ConfigError(f"retention.min_snapshots: {self.min_snapshots} must be at least 1; "
                              "the current snapshot is always kept")
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
    """When the health sensors fire for a partition."""

    max_read_amp_files: float = 1.5
    """Files a scan opens per data file (data and delete files) at which a partition is over (default 1.5)."""
    max_read_amp_bytes: float | None = None
    """Bytes a scan reads per live byte at which a partition is over; default (None):
    1 / (1 - compaction.delete_ratio_threshold)."""
    max_delete_files_per_hour: float = 12.0
    """Live delete files a partition gains per hour at which it is over (default 12)."""

    def __post_init__(self) -> None:
        for key in ("max_read_amp_files", "max_read_amp_bytes"):
            value = getattr(self, key)
            if value is not None and value <= 1.0:
                raise ConfigError(f"health.{key}: {value} must be above 1.0 (1.0 is a clean table), e.g. 1.5")
        if self.max_delete_files_per_hour <= 0:
            raise ConfigError(f"health.max_delete_files_per_hour: {self.max_delete_files_per_hour} must be positive, e.g. 12")


