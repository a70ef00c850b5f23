"""A Spark Structured Streaming query reading the table as its source: expiry keeps the snapshot the query
has processed (read from its real checkpoint), reports why, and the query then restarts and reads on."""

from __future__ import annotations

import dataclasses

from lakeops.config import build_table
from lakeops.expiry.plan import resolve_request
from lakeops.spark.expire import run_expiry
from tests.integration.expiry.conftest import now_ms


def _drain(spark, source: str, checkpoint: str) -> int:
    """Run the query until it has read everything committed so far; returns the rows it read."""
    query = (spark.readStream.format("iceberg").load(source).writeStream.format("memory").queryName(f"q{abs(hash(checkpoint))}")
             .option("checkpointLocation", checkpoint).trigger(availableNow=True).start())
    query.awaitTermination()
    return sum(int(p["numInputRows"]) for p in query.recentProgress)


def test_expiry_keeps_the_snapshot_a_streaming_reader_has_processed(history, tmp_path):
    checkpoint = str(tmp_path / "reader-checkpoint")
    first = [history.append(batch) for batch in range(3)]
    assert _drain(history.spark, history.name, checkpoint) == 60
    later = [history.append(batch) for batch in range(3, 8)]

    spec = history.config.table("events")
    entry = {**spec.entry, "retention": {**spec.entry.get("retention", {}), "streaming_checkpoints": [checkpoint]}}
    config = dataclasses.replace(history.config, tables={**history.config.tables,
                                                         spec.name: build_table(spec.id, entry, spec.defaults)})
    request = resolve_request(config.table("events").retention, now_ms(), older_than_ms=now_ms(), retain_last=1)
    result = run_expiry(history.spark, config, "events", request)

    kept = {k["snapshot_id"]: k["reason"] for k in result.as_dict()["kept_by_guards"]}
    assert kept == {first[-1]: f"last processed by the streaming query checkpointed at {checkpoint}"}
    left = {s.snapshot_id for s in history.load().snapshots()}
    assert first[-1] in left and later[-1] in left and first[0] not in left
    assert _drain(history.spark, history.name, checkpoint) == 100  # it restarts from its checkpoint and reads on
