"""Plan a streaming ingest query and name its micro-batches: pure, no Spark, no I/O.

A micro-batch's identity is the query's id (kept in the checkpoint, the same across restarts) and
the micro-batch id (Spark replays a micro-batch under its id after a crash). A fresh checkpoint
gives a new query id, so its micro-batches never collide with those of an earlier checkpoint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lakeops.config import STREAM_MAX_RUN_SECONDS, LakeopsConfig
from lakeops.config.sources import KafkaSourceConfig
from lakeops.exceptions import ConfigError
from lakeops.ingest.plan import check_ingest_mode

AVAILABLE_NOW = "available-now"
SUPERVISED = "supervised"
MODES = (AVAILABLE_NOW, SUPERVISED)

@dataclass(frozen=True)
class StreamPlan:
    table_name: str
    table: str
    """Fully qualified target table, catalog.namespace.name."""
    quarantine_table: str
    source_glob: str
    checkpoint: str
    query_name: str
    mode: str
    max_files_per_trigger: int
    trigger_seconds: int | None
    """Processing-time trigger interval (supervised); None for availableNow."""
    run_seconds: int | None
    """How long a supervised run lasts; None for availableNow (it ends when the backlog is done)."""
    stop_timeout_seconds: int
    format: str = "events"
    """events (micro-batches appended) or cdc (micro-batches merged)."""
    kafka: KafkaSourceConfig | None = None
    """The topic the query reads instead of the landing zone."""

    def trigger(self) -> dict[str, Any]:
        """Keyword arguments of DataStreamWriter.trigger."""
        if self.mode == AVAILABLE_NOW:
            return {"availableNow": True}
        return {"processingTime": f"{self.trigger_seconds} seconds"}

    def source_options(self) -> dict[str, str]:
        return {"maxFilesPerTrigger": str(self.max_files_per_trigger)}


def source_glob(landing_root: str, stream: str) -> str:
    """Every landed file of a stream: <root>/<stream>/YYYY/MM/DD/HH/mm/*.jsonl."""
    return f"{landing_root.rstrip('/')}/{stream}/*/*/*/*/*/*.jsonl"


def default_checkpoint(config: LakeopsConfig, table: str) -> str:
    """<warehouse>/_checkpoints/<namespace>/<table>: beside the table's folder, outside its location, so
    nothing that manages the table's files (orphan removal, a purge) lists it."""
    table_id = config.table_id(table)
    return f"{config.catalog.warehouse_location.rstrip('/')}/_checkpoints/{'/'.join(table_id.namespace)}/{table_id.name}"


def micro_batch_id(table: str, query_id: str, epoch: int) -> str:
    """events@stream-<query id>-<micro-batch id>: the run identity a micro-batch commits under."""
    return f"{table}@stream-{query_id}-{int(epoch)}"


def _override(value: int | None, default: int, key: str, low: int, high: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"{key}: {value!r} must be a whole number from {low} to {high}; "
                          f"leave it unset for the table's streaming.{key} ({default})")
    return value


def plan_stream(config: LakeopsConfig, table: str, mode: str, run_seconds: int | None = None,
                trigger_seconds: int | None = None) -> StreamPlan:
    """The streaming query of `table` in `mode`; run_seconds / trigger_seconds override the config (supervised)."""
    spec = config.table(table)
    check_ingest_mode(config, table, "streaming")
    if mode not in MODES:
        raise ConfigError(f"streaming mode {mode!r} is unknown; use one of {', '.join(MODES)}")
    streaming = spec.streaming
    supervised = mode == SUPERVISED
    if not supervised and (run_seconds is not None or trigger_seconds is not None):
        raise ConfigError(f"run_seconds={run_seconds!r} / trigger_seconds={trigger_seconds!r} apply to the supervised mode "
                          f"only; an {AVAILABLE_NOW} run ends when everything landed so far is committed. Leave them unset")
    run = _override(run_seconds, streaming.run_seconds, "run_seconds", 10, STREAM_MAX_RUN_SECONDS)
    trigger = _override(trigger_seconds, streaming.trigger_interval_seconds, "trigger_interval_seconds", 1, 3600)
    if supervised and trigger >= run:
        raise ConfigError(f"trigger interval {trigger} s is not shorter than the run of {run} s; "
                          "a supervised run would end before its first trigger: shorten the trigger or lengthen the run")
    return StreamPlan(
        table_name=spec.name,
        table=config.qualified(spec.name),
        quarantine_table=config.qualified(spec.quarantine_name),
        source_glob=source_glob(config.landing_root, spec.source_dir),
        checkpoint=streaming.checkpoint_location or default_checkpoint(config, spec.name),
        query_name=f"lakeops_stream_{spec.id.slug}".replace("-", "_"),
        mode=mode,
        max_files_per_trigger=streaming.max_files_per_trigger,
        trigger_seconds=trigger if supervised else None,
        run_seconds=run if supervised else None,
        stop_timeout_seconds=streaming.stop_timeout_seconds,
        format=spec.ingest.format,
        kafka=spec.ingest.kafka,
    )


def progress_line(progress: dict[str, Any]) -> str:
    """One log line from a StreamingQueryProgress (its JSON form)."""
    durations = progress.get("durationMs") or {}
    seconds = durations.get("triggerExecution", 0) / 1000
    rows = int(progress.get("numInputRows") or 0)
    rate = progress.get("processedRowsPerSecond") or 0.0
    return (f"micro-batch {progress.get('batchId')}: {rows} input rows in {seconds:.1f} s "
            f"({rate:.0f} rows/s; commit to the sink {durations.get('addBatch', 0) / 1000:.1f} s, "
            f"file listing {durations.get('latestOffset', 0) / 1000:.1f} s)")
