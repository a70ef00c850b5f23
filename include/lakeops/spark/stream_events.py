"""Run the streaming ingest query of a table: Spark's file source over the landing zone (or its Kafka source over
the table's topic), and a foreachBatch sink that commits each micro-batch exactly once under the micro-batch's
identity, quarantine first: events exactly like a batch ingest (the WAP-guarded append) or, with commit_mode staged,
in one pass over the lines (lakeops.spark.one_pass_commit: good and bad rows written together, each commit checking
the batch id); a cdc table through the MERGE; then the micro zonemap. A micro-batch read from Kafka records the
offsets it read up to in its commits' snapshot summary, and a query with a fresh checkpoint starts from the offsets the
table recorded.

Exactly once across restarts: Spark writes a micro-batch's offsets (which files) to the checkpoint
before running it and marks it done in the checkpoint's commit log after; a crash in between makes
the restarted query replay that micro-batch, with the same files and the same id. The batch id
derived from the query id and the micro-batch id is then found published, and nothing is appended
twice. Decisions (which files, trigger, identity) come from lakeops.ingest.stream.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from lakeops.catalog import load_catalog
from lakeops.config import LakeopsConfig
from lakeops.exceptions import IngestError
from lakeops.ingest.kafka import advanced, offsets_property, render_offsets
from lakeops.ingest.stream import AVAILABLE_NOW, StreamPlan, micro_batch_id, progress_line
from lakeops.phases import add_phases, render_phases
from lakeops.spark.cdc_apply import apply_changes
from lakeops.spark.ingest_events import IngestResult, commit_events, current_columns, ensure_tables, parsed_lines
from lakeops.spark.kafka_batch import table_offsets
from lakeops.spark.kafka_source import read_stream
from lakeops.spark.one_pass_commit import commit_events_one_pass

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.streaming import StreamingQuery

log = logging.getLogger(__name__)

BIND_TIMEOUT_S = 60
HEARTBEAT_S = 60


@dataclass(frozen=True)
class StreamResult:
    table: str
    mode: str
    query_id: str
    status: str
    """finished (availableNow: everything landed was read) | stopped (supervised: the run's time was up)"""
    micro_batches: int
    committed: int
    already_committed: int
    """Micro-batches replayed after a crash whose commit was already published: appended nothing."""
    files: int
    rows: int
    quarantined: int
    seconds: float
    phases: dict[str, float]
    """Wall seconds per phase over all micro-batches (lakeops.phases)."""

    def as_dict(self) -> dict:
        return asdict(self)


class MicroBatchWriter:
    """The foreachBatch function: commits micro-batch `epoch` under micro_batch_id(table, query id, epoch).

    The query id is known only once the query has started; a micro-batch that starts before bind()
    waits for it. Classic PySpark calls this in the driver process, so the results stay readable here."""

    def __init__(self, config: LakeopsConfig, plan: StreamPlan, catalog: Catalog) -> None:
        self.config = config
        self.plan = plan
        self.catalog = catalog
        self.results: list[IngestResult] = []
        self._query_id: str | None = None
        self._bound = threading.Event()

    def bind(self, query_id: str) -> None:
        self._query_id = query_id
        self._bound.set()

    def __call__(self, batch: DataFrame, epoch: int) -> None:
        if not self._bound.wait(BIND_TIMEOUT_S):
            raise IngestError(f"micro-batch {epoch} of {self.plan.table} started but the query id was not bound "
                              f"within {BIND_TIMEOUT_S} s; call bind(query.id) after start()")
        assert self._query_id is not None
        batch_id = micro_batch_id(self.plan.table_name, self._query_id, epoch)
        started = time.monotonic()
        # The micro-batch runs in the query's own session (a clone): stage and publish through it. The columns
        # are read per micro-batch, so a column added to the table is filled from the next one on.
        spark, table = batch.sparkSession, self.plan.table_name
        extra = self._offsets_summary(batch)
        raw = batch.select("value", "source_file")
        if self.plan.format == "cdc":
            applied = apply_changes(spark, self.catalog, self.config, table, raw, batch_id, 0, extra)
            result = IngestResult(batch_id, applied.status, applied.files, applied.changes, applied.quarantined,
                                  applied.snapshot_id)
        else:
            raw = raw.where("value IS NOT NULL")
            columns = current_columns(spark, self.catalog, self.config, table, raw)
            ingest = self.config.table(table).ingest
            parsed, files = parsed_lines(raw, columns, ingest), None if self.plan.kafka is None else 0
            if ingest.commit_mode == "staged":
                result = commit_events_one_pass(spark, self.catalog, self.config, table, parsed, batch_id, files, extra)
            else:
                result = commit_events(spark, self.catalog, self.config, table, parsed, batch_id, columns, files, extra)
        self.results.append(result)
        log.info("micro-batch %d %s: %d files, %d rows, %d quarantined, snapshot %s (%.1f s) phases %s", epoch,
                 result.status, result.files, result.rows, result.quarantined, result.snapshot_id,
                 time.monotonic() - started, render_phases(result.phases) or "-")


    def _offsets_summary(self, batch: DataFrame) -> dict[str, str] | None:
        """For a Kafka micro-batch: the offsets after it (the table's, moved past what it read), for its commits."""
        from pyspark.sql import functions as F

        if self.plan.kafka is None:
            return None
        last = {int(r[0]): int(r[1]) for r in batch.groupBy("partition").agg(F.max("offset")).collect()}
        offsets = advanced(table_offsets(self.catalog, self.config, self.plan.table_name), last)
        return {offsets_property(self.plan.kafka.topic): render_offsets(offsets)}


def _progress_logger() -> Any:
    from pyspark.sql.streaming import StreamingQueryListener

    class ProgressLogger(StreamingQueryListener):
        """Spark's own figures of each micro-batch (input rows, listing and sink time) in the job log."""

        def onQueryStarted(self, event: Any) -> None:
            log.info("query %s started (run %s)", event.id, event.runId)

        def onQueryProgress(self, event: Any) -> None:
            log.info("%s", progress_line(json.loads(event.progress.json)))

        def onQueryIdle(self, event: Any) -> None:
            pass

        def onQueryTerminated(self, event: Any) -> None:
            log.info("query %s terminated%s", event.id, f": {event.exception}" if event.exception else "")

    return ProgressLogger()


def start_query(spark: SparkSession, plan: StreamPlan, writer: MicroBatchWriter) -> StreamingQuery:
    """The landing zone as a text stream (value, source_file), or the table's Kafka topic (value, source_file,
    partition, offset), into writer, from plan.checkpoint."""
    from pyspark.sql import functions as F

    if plan.kafka is not None:
        committed = table_offsets(writer.catalog, writer.config, plan.table_name)
        starting = (plan.kafka.starting_offsets if not committed
                    else json.dumps({plan.kafka.topic: {str(p): o for p, o in sorted(committed.items())}}))
        source = read_stream(spark, plan.kafka, starting)
    else:
        source = (spark.readStream.format("text").options(**plan.source_options()).load(plan.source_glob)
                  .select("value", F.input_file_name().alias("source_file")))
    query = (source.writeStream.queryName(plan.query_name).foreachBatch(writer)
             .option("checkpointLocation", plan.checkpoint).trigger(**plan.trigger()).start())
    writer.bind(query.id)
    return query


def _supervise(query: StreamingQuery, plan: StreamPlan, writer: MicroBatchWriter, started: float) -> str:
    """Let the query run for plan.run_seconds, logging a heartbeat; then stop it between micro-batches."""
    assert plan.run_seconds is not None
    deadline = started + plan.run_seconds
    next_heartbeat = started + HEARTBEAT_S
    while time.monotonic() < deadline:
        # pyspark annotates the timeout as int; it takes seconds as a float too (int(timeout * 1000))
        if query.awaitTermination(max(0.1, min(deadline, next_heartbeat) - time.monotonic())):  # type: ignore[arg-type]
            raise IngestError(f"the streaming query of {plan.table} stopped by itself after "
                              f"{time.monotonic() - started:.0f} s of a {plan.run_seconds} s run; see the log above")
        if time.monotonic() >= next_heartbeat:
            log.info("stream %s: %.0f s of %d s, %d micro-batches, %d rows committed so far", plan.table_name,
                     time.monotonic() - started, plan.run_seconds, len(writer.results), sum(r.rows for r in writer.results))
            next_heartbeat += HEARTBEAT_S
    stop_by = time.monotonic() + plan.stop_timeout_seconds
    while query.status["isTriggerActive"] and time.monotonic() < stop_by:
        time.sleep(0.2)
    if query.status["isTriggerActive"]:
        log.warning("micro-batch still running after %d s; stopping anyway (the next run replays it, exactly once)",
                    plan.stop_timeout_seconds)
    query.stop()
    return "stopped"


def _total_phases(results: list[IngestResult]) -> dict[str, float]:
    total: dict[str, float] = {}
    for r in results:
        total = add_phases(total, r.phases)
    return total


def run_stream(spark: SparkSession, config: LakeopsConfig, plan: StreamPlan) -> StreamResult:
    """Run the query in plan.mode and return what its micro-batches committed. Raises when it fails."""
    # py4j's callback server (foreachBatch, the listener) logs every call at INFO: keep the job log to progress.
    logging.getLogger("py4j").setLevel(logging.WARNING)
    catalog = load_catalog(config.catalog)
    ensure_tables(spark, catalog, config, plan.table_name)
    writer = MicroBatchWriter(config, plan, catalog)
    listener = _progress_logger()
    spark.streams.addListener(listener)
    started = time.monotonic()
    query = None
    try:
        spark.sparkContext.setJobDescription(f"lakeops stream {plan.table_name} ({plan.mode})")
        query = start_query(spark, plan, writer)
        log.info("stream %s (%s): query %s reads %s, checkpoint %s, trigger %s", plan.table_name, plan.mode, query.id,
                 f"Kafka topic {plan.kafka.topic}" if plan.kafka else plan.source_glob, plan.checkpoint, plan.trigger())
        if plan.mode == AVAILABLE_NOW:
            query.awaitTermination()
            status = "finished"
        else:
            status = _supervise(query, plan, writer, started)
    finally:
        if query is not None and query.isActive:
            query.stop()
        # Progress events are delivered asynchronously: let the last ones reach the listener first.
        spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty()
        spark.streams.removeListener(listener)
    results = writer.results
    result = StreamResult(
        table=plan.table, mode=plan.mode, query_id=str(query.id), status=status, micro_batches=len(results),
        committed=sum(r.status == "committed" for r in results),
        already_committed=sum(r.status == "already_committed" for r in results),
        files=sum(r.files for r in results), rows=sum(r.rows for r in results),
        quarantined=sum(r.quarantined for r in results), seconds=round(time.monotonic() - started, 1),
        phases={k: round(v, 2) for k, v in _total_phases(results).items()})
    log.info("stream %s %s after %.0f s: %d micro-batches (%d committed, %d already committed), %d files, %d rows, "
             "%d quarantined", plan.table_name, status, result.seconds, result.micro_batches, result.committed,
             result.already_committed, result.files, result.rows, result.quarantined)
    return result
