"""Commit a streaming micro-batch of events in one pass over its lines: parse once, write the good rows as data files
of the table and the bad ones as data files of its quarantine in the same Spark job (the staged writers' file writer,
lakeops.spark.stage_events.write_staged_files), then commit both with pyiceberg, exactly once (quarantine first).

The direct path (lakeops.spark.ingest_events.commit_events) caches the parsed rows, counts them, and writes each table
from the cache; the cache and its count cost about as much CPU as the parse itself. Here the counts come from the
files written. Exactly once: the batch id is looked for before writing and again inside each commit
(lakeops.staging.commit.append_once); a replayed micro-batch writes into a new attempt folder, and the folders no commit
of the batch added are deleted after it."""

from __future__ import annotations

import logging
import uuid
from typing import TYPE_CHECKING

from lakeops.batches import batch_committed, published_snapshot
from lakeops.config import LakeopsConfig
from lakeops.failpoints import INGEST_BEFORE_PUBLISH, failpoint
from lakeops.phases import PhaseTimer, render_phases
from lakeops.spark.ingest_events import IngestResult, batch_summary, write_zonemap_after_commit
from lakeops.spark.stage_events import write_staged_files
from lakeops.staging.cleanup import clean_batch
from lakeops.staging.commit import append_once
from lakeops.staging.plan import attempt_data_dir, batch_key

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger(__name__)
WRITER = 0
"""The one writer of a micro-batch, in the staging folder names."""


def commit_events_one_pass(spark: SparkSession, catalog: Catalog, config: LakeopsConfig, table: str, parsed: DataFrame,
                           batch_id: str, files: int | None = None, extra_summary: dict[str, str] | None = None
                           ) -> IngestResult:
    """Commit parsed lines (parse_events + ingested_at) as batch batch_id, exactly once: bad lines to the quarantine
    first, then the good rows, then the micro zonemap. files: the landed files of the batch; None: the distinct
    source_file values of its rows (0 for a Kafka batch, whose source_file names each record)."""
    spec = config.table(table)
    identifiers = (config.identifier(spec.name), config.identifier(spec.quarantine_name))
    events, quarantine = (catalog.load_table(i) for i in identifiers)
    key = batch_key(spec.name, batch_id)
    if batch_committed(events, quarantine, batch_id):
        log.info("batch %s is already committed to %s; nothing to do", batch_id, table)
        published = published_snapshot(events, batch_id)
        if published is not None:
            write_zonemap_after_commit(catalog, config, table, published, missing_only=True)
        clean_batch([events, quarantine], key, batch_id)
        return IngestResult(batch_id, "already_committed", files or 0)
    timer = PhaseTimer()
    attempt = uuid.uuid4().hex[:12]
    data_dirs = {spec.name: attempt_data_dir(events.location(), key, WRITER, attempt),
                 spec.quarantine_name: attempt_data_dir(quarantine.location(), key, WRITER, attempt)}
    spark.sparkContext.setJobDescription(f"lakeops ingest {batch_id}: parse and write in one pass")
    with timer.phase("parse_write"):
        # Unclustered: the tasks that parse the lines write them too, in parallel; a micro-batch of events that
        # arrive in time order leaves one file per task, not one for the whole micro-batch.
        written = write_staged_files(spark, config, parsed, table, batch_id, events, quarantine, data_dirs,
                                     report_sources=files is None, cluster=False)
    good, bad = written.data_files.get(spec.name, []), written.data_files.get(spec.quarantine_name, [])
    files = len(written.source_files) if files is None else files
    rows, quarantined = sum(f["record_count"] for f in good), sum(f["record_count"] for f in bad)
    log.info("batch %s: %d files, %d good rows in %d data files, %d rows to quarantine", batch_id, files, rows, len(good),
             quarantined)
    failpoint(INGEST_BEFORE_PUBLISH)
    summary = {**batch_summary(rows, quarantined, files, extra_summary), "lakeops.commit-mode": "one-pass"}
    snapshot = quarantine_snapshot = None
    with timer.phase("commit"):
        if bad:
            quarantine_snapshot, _ = append_once(catalog, identifiers[1], batch_id, bad, summary)
        if good:
            snapshot, _ = append_once(catalog, identifiers[0], batch_id, good, summary)
    # A commit that returns None found the micro-batch committed by a concurrent run of it.
    raced = (bool(good) and snapshot is None) or (not good and bool(bad) and quarantine_snapshot is None)
    status = "already_committed" if raced else "committed"
    if snapshot is not None:
        with timer.phase("zonemap"):
            write_zonemap_after_commit(catalog, config, table, snapshot)
    with timer.phase("commit"):
        clean_batch([catalog.load_table(i) for i in identifiers], key, batch_id)
    log.info("batch %s: %s %d rows (snapshot %s), quarantined %d; %s", batch_id, status, rows, snapshot, quarantined,
             render_phases(timer.seconds))
    return IngestResult(batch_id, status, files, rows, quarantined, snapshot, timer.seconds)
