"""lakeops.ingest.kafka: offset ranges, batch ids and the offsets a commit records, on literals."""

from __future__ import annotations

import json

import pytest

from lakeops.exceptions import IngestError
from lakeops.ingest.kafka import (
    OffsetRange,
    advanced,
    committed_offsets,
    kafka_batch_id,
    offsets_property,
    plan_range,
    render_offsets,
)

TOPIC = "shop.public.orders"


def test_a_table_without_offsets_starts_where_it_is_told():
    latest = {0: 40, 1: 10}
    assert plan_range(TOPIC, {}, {0: 5, 1: 0}, latest, "earliest", 1000).start == {0: 5, 1: 0}
    assert plan_range(TOPIC, {}, {0: 5, 1: 0}, latest, "latest", 1000).start == latest


def test_a_batch_reads_from_the_committed_offsets_bounded_per_partition():
    offsets = plan_range(TOPIC, {0: 20}, {0: 0, 1: 0}, {0: 40, 1: 100}, "earliest", 30)
    assert offsets == OffsetRange(TOPIC, {0: 20, 1: 0}, {0: 35, 1: 15})
    assert offsets.records == 30
    assert json.loads(offsets.spark_options()["endingOffsets"]) == {TOPIC: {"0": 35, "1": 15}}


def test_a_crashed_batch_is_read_again_up_to_what_its_quarantine_commit_recorded():
    first = plan_range(TOPIC, {}, {0: 0}, {0: 50}, "earliest", 1000)
    again = plan_range(TOPIC, {}, {0: 0}, {0: 90}, "earliest", 1000, pending_end={0: 50})
    assert first == again and kafka_batch_id("s.t", TOPIC, first.start) == kafka_batch_id("s.t", TOPIC, again.start)


def test_offsets_deleted_before_they_were_read_fail_with_the_gap_named():
    with pytest.raises(IngestError, match=r"partition 0: offsets 10 to 24 were deleted"):
        plan_range(TOPIC, {0: 10}, {0: 25}, {0: 60}, "earliest", 1000)


def test_committed_offsets_are_the_largest_recorded_per_partition():
    key = offsets_property(TOPIC)
    summaries = [{key: render_offsets({0: 30, 1: 7})}, {"other": "x"}, {key: render_offsets({0: 12, 2: 4})}]
    assert committed_offsets(summaries, TOPIC) == {0: 30, 1: 7, 2: 4}
    assert committed_offsets([], TOPIC) == {}


def test_batch_ids_follow_the_start_offsets_and_micro_batches_advance_past_what_they_read():
    assert kafka_batch_id("s.t", TOPIC, {0: 1}) != kafka_batch_id("s.t", TOPIC, {0: 2})
    assert kafka_batch_id("s.t", TOPIC, {0: 1}).startswith("s.t@kafka-shop.public.orders-")
    assert advanced({0: 10, 1: 3}, {0: 19, 2: 0}) == {0: 20, 1: 3, 2: 1}
