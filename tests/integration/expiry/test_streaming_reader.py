"""A Spark Structured Streaming query reading the table as its source: expiry keeps the snapshot the query
has processed (read from its real checkpoint), reports why, and the query then restarts and reads on."""

from __future__ import annotations

import dataclasses

from lakeops.config import build_table
from lakeops.expiry.plan import resolve_request
from lakeops.spark.expire import run_expiry
from tests.integration.expiry.conftest import now_ms


def _drain(spark, source: str, checkpoint: str, from_ms: int) -> int:
    """Run the query until it has read everything committed so far (from `from_ms` on, when it first starts);
    returns the rows it read."""
    # A file sink: it recovers from its checkpoint (a memory sink cannot).
    reader = spark.readStream.format("iceberg").option("stream-from-timestamp", str(from_ms))
    query = (reader.load(source).writeStream.format("parquet")
             .option("path", f"{checkpoint}-out").option("checkpointLocation", checkpoint).trigger(availableNow=True).start())
    query.awaitTermination()
    return sum(int(p["numInputRows"]) for p in query.recentProgress)


def test_expiry_keeps_the_snapshots_a_streaming_reader_still_needs(history, tmp_path):
    checkpoint = str(tmp_path / "reader-checkpoint")
    before = [history.append(batch) for batch in range(2)]  # committed before the query started: not needed
    first = [history.append(batch) for batch in range(2, 5)]
    started_ms = history.load().snapshot_by_id(first[0]).timestamp_ms
    assert _drain(history.spark, history.name, checkpoint, started_ms) == 60
    later = [history.append(batch) for batch in range(5, 10)]

    spec = history.config.table("events")
    entry = {**spec.entry, "retention": {**spec.entry.get("retention", {}), "streaming_checkpoints": [checkpoint]}}
    config = dataclasses.replace(history.config, tables={**history.config.tables,
                                                         spec.name: build_table(spec.id, entry, spec.defaults)})
    now = now_ms()  # one instant: older_than equal to now, never a millisecond after it
    request = resolve_request(config.table("events").retention, now, older_than_ms=now, retain_last=1)
    result = run_expiry(history.spark, config, "events", request)

    kept = {k["snapshot_id"]: k["reason"] for k in result.as_dict()["kept_by_guards"]}
    assert set(kept) == {*first, *later[:-1]}
    assert kept[first[-1]].startswith("last processed by the streaming query checkpointed at ")
    left = {s.snapshot_id for s in history.load().snapshots()}
    assert left == {*first, *later} and not left & set(before), "from where it started on, every snapshot stays"
    assert _drain(history.spark, history.name, checkpoint, started_ms) == 100  # it restarts from its checkpoint and reads on
