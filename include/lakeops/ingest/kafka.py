"""Kafka as a source, planned: which offsets a batch reads, under which batch id, and how the offsets a commit read
up to are recorded in its snapshot summary (`lakeops.kafka.offsets.<topic>`: {"partition": next offset}, as the
Kafka Connect sink records `kafka.connect.offsets.*`). Pure: the offsets come from the caller.

Exactly once: a batch starts where the last complete commit's offsets end and its id is derived from those start
offsets, so a retry after a crash before the commit reads from the same place under the same id, and a batch
published once is never published again (the write-audit-publish guard). When the crash came after the batch's
quarantine commit and before its table commit, the retry reads up to the end offsets that quarantine commit
recorded, so both commits of the batch cover the same records.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from lakeops.exceptions import IngestError

OFFSETS_PREFIX = "lakeops.kafka.offsets."


def offsets_property(topic: str) -> str:
    return OFFSETS_PREFIX + topic


def render_offsets(offsets: Mapping[int, int]) -> str:
    return json.dumps({str(p): int(o) for p, o in sorted(offsets.items())}, separators=(",", ":"))


def parse_offsets(text: str) -> dict[int, int]:
    return {int(p): int(o) for p, o in json.loads(text).items()}


def committed_offsets(summaries: Iterable[Mapping[str, str]], topic: str) -> dict[int, int]:
    """The next offset to read per partition after every complete commit among `summaries` (offsets only grow, so
    each partition's largest recorded offset); empty when none recorded any."""
    found: dict[int, int] = {}
    for summary in summaries:
        text = summary.get(offsets_property(topic))
        if text:
            for partition, offset in parse_offsets(text).items():
                found[partition] = max(offset, found.get(partition, offset))
    return found


@dataclass(frozen=True)
class OffsetRange:
    topic: str
    start: dict[int, int]
    end: dict[int, int]
    """Exclusive: the next offset to read after this batch."""

    @property
    def records(self) -> int:
        return sum(self.end[p] - self.start[p] for p in self.start)

    def spark_options(self) -> dict[str, str]:
        """startingOffsets / endingOffsets of Spark's Kafka source for exactly this range."""
        def render(offsets: Mapping[int, int]) -> str:
            return json.dumps({self.topic: {str(p): o for p, o in sorted(offsets.items())}})
        return {"startingOffsets": render(self.start), "endingOffsets": render(self.end)}


def plan_range(topic: str, committed: Mapping[int, int], earliest: Mapping[int, int], latest: Mapping[int, int],
               starting: str, max_records: int, pending_end: Mapping[int, int] | None = None) -> OffsetRange:
    """The next batch: from the committed offsets (a partition with none: `starting`, earliest or latest) up to the
    latest offsets, at most max_records spread over the partitions; or up to `pending_end` when a crashed run of
    this batch already committed its quarantine part."""
    start = {}
    for partition in sorted(latest):
        low = earliest.get(partition, 0)
        if partition in committed:
            if committed[partition] < low:
                raise IngestError(
                    f"topic {topic} partition {partition}: offsets {committed[partition]} to {low - 1} were deleted (by "
                    f"retention) before lakeops read them; the table would miss those records. Re-load the table from "
                    f"the source (a new Debezium snapshot), or accept the gap by committing from offset {low} on")
            start[partition] = committed[partition]
        else:
            start[partition] = low if starting == "earliest" else latest[partition]
    if pending_end is not None:
        return OffsetRange(topic, start, {p: max(start[p], pending_end.get(p, start[p])) for p in start})
    share = max(1, max_records // max(1, len(start)))
    return OffsetRange(topic, start, {p: min(latest[p], start[p] + share) for p in start})


def kafka_batch_id(table: str, topic: str, start: Mapping[int, int]) -> str:
    """<table>@kafka-<topic>-<digest of the start offsets>: the same start gives the same id."""
    digest = hashlib.sha256(render_offsets(start).encode()).hexdigest()[:16]
    return f"{table}@kafka-{topic}-{digest}"


def advanced(previous: Mapping[int, int], last_read: Mapping[int, int]) -> dict[int, int]:
    """The offsets after a micro-batch: the previous ones, each partition read moved past the last offset read."""
    offsets = dict(previous)
    for partition, offset in last_read.items():
        offsets[partition] = max(offsets.get(partition, 0), offset + 1)
    return offsets
