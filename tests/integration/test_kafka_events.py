"""Events from a real Kafka broker (KRaft), exactly once: a spark-submit of the batch ingest is killed with SIGKILL
after its rows are written and before they are published; the rerun reads the same offsets under the same batch
id, the next run the records produced since. No event twice, none missing, every bad record once in the
quarantine, and the last commit's snapshot summary holds the topic's end offsets. A streaming query (availableNow)
over the same topic commits the same events and offsets."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest
import yaml
from pyiceberg.table.snapshots import ancestors_of

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.failpoints import INGEST_BEFORE_PUBLISH
from lakeops.ingest.kafka import offsets_property, parse_offsets
from lakeops.ingest.plan import plan_ingest
from lakeops.ingest.stream import AVAILABLE_NOW, plan_stream
from lakeops.runtime import spark_submit_command
from lakeops.spark.ingest_events import run_ingest
from lakeops.spark.stream_events import run_stream
from tests.conftest import config_data, register_catalog
from tests.crash import kill_at_failpoint
from tests.servers.kafka_client import create_topic, produce

pytestmark = pytest.mark.spark

START = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
BATCH, STREAM = "web.clicks_kafka", "web.clicks_kafka_stream"


def _produce(bootstrap: str, topic: str, first: int, count: int, bad: list[str]) -> None:
    """count good events numbered from `first` and the bad lines, over two partitions, and a tombstone on each."""
    for partition in (0, 1):
        numbers = range(first + partition, first + count, 2)
        lines = [json.dumps({"click_id": f"c{n}", "n": n}) for n in numbers] + bad[partition::2]
        produce(bootstrap, topic, [(b"k", line.encode()) for line in lines] + [(b"k", None)], partition=partition)


def _table(config, name: str):
    return load_catalog(config.catalog).load_table(name)


def _last_offsets(config, name: str, topic: str) -> dict[int, int]:
    table = _table(config, name)
    for snapshot in ancestors_of(table.current_snapshot(), table.metadata):
        recorded = snapshot.summary.additional_properties.get(offsets_property(topic))
        if recorded:
            return parse_offsets(recorded)
    return {}


def test_kafka_events_exactly_once_through_a_killed_run_and_a_stream(spark, tmp_path, kafka_broker):
    bootstrap = kafka_broker.bootstrap_servers
    topic = f"clicks-{uuid.uuid4().hex[:8]}"
    create_topic(bootstrap, topic, partitions=2)
    bad_first, bad_later = ["not json", '{"click_id": "x"}', '{"click_id": "y", "n": "two"}', "[3]"], ['{"n": 5}']
    _produce(bootstrap, topic, 0, 200, bad_first)
    columns = {"click_id": "string not null", "n": "bigint not null", "ingested_at": "timestamp"}
    kafka = {"topic": topic, "bootstrap_servers": bootstrap}
    tables = {BATCH: {"create": {"columns": columns}, "ingest": {"kafka": kafka}},
              STREAM: {"create": {"columns": columns},
                       "ingest": {"kafka": kafka, "mode": "streaming", "commit_mode": "staged"}}}
    path = tmp_path / "lakeops.yaml"
    path.write_text(yaml.safe_dump(config_data(tmp_path, tables)))
    config = load_config(path)
    register_catalog(spark, config)
    interval = ["--start", START.isoformat(), "--end", (START + timedelta(minutes=5)).isoformat()]

    kill_at_failpoint(spark_submit_command("ingest_events", ["--table", BATCH, *interval, "--config", str(path)], tmp_path,
                                           master="local[1]"), INGEST_BEFORE_PUBLISH, tmp_path)
    assert _table(config, BATCH).current_snapshot() is None, "the killed run published no event"
    killed_quarantine = _table(config, BATCH + "_quarantine").current_snapshot()
    assert killed_quarantine is not None, "its quarantine part was committed before the kill"
    _produce(bootstrap, topic, 200, 100, bad_later)

    plan = plan_ingest(config, BATCH, START, START + timedelta(minutes=5))
    rerun, later, idle = (run_ingest(spark, config, BATCH, plan) for _ in range(3))

    assert (rerun.status, rerun.rows, rerun.quarantined) == ("committed", 200, len(bad_first))
    assert (later.status, later.rows, later.quarantined) == ("committed", 100, len(bad_later))
    assert idle.status == "no_input"
    ids = _table(config, BATCH).scan(selected_fields=("n",)).to_arrow().column("n").to_pylist()
    assert sorted(ids) == list(range(300)), "no duplicate, no gap"
    raw = _table(config, BATCH + "_quarantine").scan().to_arrow().column("raw_line").to_pylist()
    assert sorted(raw) == sorted(bad_first + bad_later)
    # Per partition: 150 events, its share of the bad lines and a tombstone after each of the two produces.
    end = {0: 150 + 3 + 2, 1: 150 + 2 + 2}
    assert _last_offsets(config, BATCH, topic) == end

    streamed = run_stream(spark, config, plan_stream(config, STREAM, AVAILABLE_NOW))
    assert (streamed.rows, streamed.quarantined) == (300, len(bad_first) + len(bad_later))
    assert sorted(_table(config, STREAM).scan(selected_fields=("n",)).to_arrow().column("n").to_pylist()) == list(range(300))
    assert _last_offsets(config, STREAM, topic) == end
    summary = _table(config, STREAM).current_snapshot().summary.additional_properties
    assert (summary["lakeops.commit-mode"], summary["lakeops.files"]) == ("one-pass", "0"), \
        "the staged stream writes each micro-batch in one pass; a Kafka batch has no landed files"
