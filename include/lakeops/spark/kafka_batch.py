"""The next batch of a table whose input is a Kafka topic: the offsets its complete commits recorded, the topic's
offsets now, and the range and batch id lakeops.ingest.kafka plans from them. Shared by the events and the CDC
ingest; the commit then carries the range's end offsets in its snapshot summary."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyiceberg.table.snapshots import ancestors_of

from lakeops.batches import ROWS_PROPERTY, published_snapshot
from lakeops.config import LakeopsConfig
from lakeops.ingest.kafka import (
    OffsetRange,
    committed_offsets,
    kafka_batch_id,
    offsets_property,
    parse_offsets,
    plan_range,
    render_offsets,
)
from lakeops.spark.kafka_source import topic_offsets

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class KafkaBatch:
    batch_id: str
    offsets: OffsetRange
    summary: dict[str, str]
    """What both commits of the batch carry: the offsets it read up to."""


def _summaries(table: Table, complete_only: bool) -> list[dict[str, str]]:
    """Snapshot summaries of the current snapshot's ancestors; complete_only: quarantine commits of batches with no
    table commit (lakeops.rows 0), the only quarantine commits that finish a batch."""
    if table.current_snapshot() is None:
        return []
    found = []
    for snapshot in ancestors_of(table.current_snapshot(), table.metadata):
        summary = dict(snapshot.summary.additional_properties) if snapshot.summary is not None else {}
        if not complete_only or summary.get(ROWS_PROPERTY) == "0":
            found.append(summary)
    return found


def table_offsets(catalog: Catalog, config: LakeopsConfig, table: str) -> dict[int, int]:
    """The offsets of the table's topic its complete commits read up to (empty when none did)."""
    spec = config.table(table)
    assert spec.ingest.kafka is not None
    loaded = catalog.load_table(config.identifier(table))
    quarantine = catalog.load_table(config.identifier(spec.quarantine_name))
    return committed_offsets(_summaries(loaded, False) + _summaries(quarantine, True), spec.ingest.kafka.topic)


def plan_kafka_batch(spark: SparkSession, catalog: Catalog, config: LakeopsConfig, table: str) -> KafkaBatch:
    spec = config.table(table)
    source = spec.ingest.kafka
    assert source is not None
    loaded = catalog.load_table(config.identifier(table))
    quarantine = catalog.load_table(config.identifier(spec.quarantine_name))
    committed = table_offsets(catalog, config, table)
    earliest, latest = topic_offsets(spark, source)
    offsets = plan_range(source.topic, committed, earliest, latest, source.starting_offsets, source.max_records_per_batch)
    batch_id = kafka_batch_id(spec.name, source.topic, offsets.start)
    pending = published_snapshot(quarantine, batch_id)
    if pending is not None and published_snapshot(loaded, batch_id) is None:
        snapshot = quarantine.snapshot_by_id(pending)
        recorded = (snapshot.summary.additional_properties if snapshot and snapshot.summary else {}).get(
            offsets_property(source.topic))
        if recorded:
            log.info("batch %s: its quarantine part was committed up to %s; reading the same range again", batch_id,
                     recorded)
            offsets = plan_range(source.topic, committed, earliest, latest, source.starting_offsets,
                                 source.max_records_per_batch, parse_offsets(recorded))
    log.info("batch %s: topic %s from %s to %s (%d records)", batch_id, source.topic, render_offsets(offsets.start),
             render_offsets(offsets.end), offsets.records)
    return KafkaBatch(batch_id, offsets, {offsets_property(source.topic): render_offsets(offsets.end)})
