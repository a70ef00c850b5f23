"""A real PostgreSQL table changed at random while lakeops ingests what a real Debezium captures from it, through
Kafka and through files, ends up identical in Iceberg, row for row and value for value, through a crash of the
ingest between its write and its commit.

The path: PostgreSQL 15 (wal_level=logical) -> Debezium 3.6's PostgreSQL connector in Kafka Connect with its default
converter settings (schema + payload) -> a Kafka broker (KRaft). Then:
* `shop.orders_kafka` reads the topic with Spark's Kafka source (ingest.kafka), each batch from the offsets the
  previous commit recorded in its snapshot summary;
* `shop.orders_files` reads the same records landed as files (each record's value as a line, a tombstone as
  `null`), one landing folder per data interval, as a file sink of the topic would leave them;
* `shop.orders_stream` streams the topic (availableNow, at most 150 records a micro-batch), each micro-batch
  merged like a batch.
All evolve (the workload adds a column halfway and drops one later; the dropped column stays, null in the rows
changed since). Large text values stored out of line (TOASTed) and updates that leave them alone make Debezium send
its unavailable-value placeholder: the tables keep the stored values. In the middle, a real spark-submit of the Kafka
ingest and one of the files ingest are each killed with SIGKILL after their MERGE is written and before it is
published; the next runs read the same offsets and the same landed files again.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta

import pytest
import yaml
from pyiceberg.table.snapshots import ancestors_of

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.config.sources import UNAVAILABLE_PLACEHOLDER as PLACEHOLDER
from lakeops.failpoints import INGEST_BEFORE_PUBLISH
from lakeops.generator.files import write_jsonl
from lakeops.ingest.kafka import offsets_property, parse_offsets
from lakeops.ingest.plan import plan_ingest
from lakeops.ingest.stream import AVAILABLE_NOW, plan_stream
from lakeops.landing import minute_dir
from lakeops.runtime import spark_submit_command
from lakeops.spark.ingest_cdc import run_cdc_ingest
from lakeops.spark.stream_events import run_stream
from tests.conftest import config_data, register_catalog
from tests.crash import kill_at_failpoint
from tests.integration.cdc.pg_workload import ICEBERG_COLUMNS, RandomWorkload
from tests.servers.kafka_client import read_topic

pytestmark = pytest.mark.spark

START = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
FIVE = timedelta(minutes=5)
KAFKA, FILES, STREAM = "shop.orders_kafka", "shop.orders_files", "shop.orders_stream"


def _table(extra: dict) -> dict:
    return {"key": ["id"], "create": {"columns": dict(ICEBERG_COLUMNS)}, **extra}


def _iceberg_rows(config, table: str) -> dict[int, dict]:
    rows = load_catalog(config.catalog).load_table(table).scan().to_arrow().to_pylist()
    for row in rows:
        row["attrs"] = None if row["attrs"] is None else json.loads(row["attrs"])
    return {row["id"]: row for row in rows}


def _summaries(config, table: str) -> list[dict[str, str]]:
    loaded = load_catalog(config.catalog).load_table(table)
    return [dict(s.summary.additional_properties) for s in ancestors_of(loaded.current_snapshot(), loaded.metadata)]


def test_random_changes_through_debezium_end_identical_through_kafka_and_files_and_a_crash(
        spark, tmp_path, postgres_server, postgres_database, kafka_broker, debezium_postgres):
    started = time.monotonic()
    workload = RandomWorkload(postgres_server, postgres_database, seed=32)
    workload.create(snapshot_rows=25)
    connector = debezium_postgres(postgres_database, ["orders"])
    topic = connector.topic("orders")
    kafka = {"topic": topic, "bootstrap_servers": kafka_broker.bootstrap_servers}
    tables = {KAFKA: _table({"ingest": {"format": "cdc", "kafka": kafka, "evolve": "add_columns"}}),
              FILES: _table({"source": "cdc/orders_files", "ingest": {"format": "cdc", "evolve": "add_columns"}}),
              STREAM: _table({"ingest": {"format": "cdc", "mode": "streaming", "evolve": "add_columns",
                                         "kafka": {**kafka, "max_records_per_batch": 150}}})}
    data = config_data(tmp_path, tables)
    path = tmp_path / "lakeops.yaml"
    path.write_text(yaml.safe_dump(data))
    config = load_config(path)
    register_catalog(spark, config)
    landed = 0

    def land_and_ingest(interval: int) -> None:
        """One data interval: land what the topic holds beyond what was landed, ingest both tables."""
        land(interval)
        ingest(interval)

    def land(interval: int) -> None:
        """Land what the topic holds beyond what was landed, as interval `interval`'s file."""
        nonlocal landed
        records = [r for r in read_topic(kafka_broker.bootstrap_servers, topic) if r.offset >= landed]
        write_jsonl(minute_dir(config.landing_root, "cdc/orders_files", START + interval * FIVE), f"part-{interval}.jsonl",
                    ["null" if r.value is None else r.value.decode() for r in records])
        landed += len(records)

    def ingest(interval: int) -> None:
        moment = START + interval * FIVE
        for table in (FILES, KAFKA):
            results.append(run_cdc_ingest(spark, config, table, plan_ingest(config, table, moment, moment + FIVE)))

    def killed(table: str, interval: int) -> None:
        """A real spark-submit of the table's ingest, killed between its MERGE and the publish."""
        window = [(START + interval * FIVE).isoformat(), (START + (interval + 1) * FIVE).isoformat()]
        work = tmp_path / f"killed-{table}"
        work.mkdir()
        submit = spark_submit_command("ingest_cdc", ["--table", table, "--start", window[0], "--end", window[1],
                                                     "--config", str(path)], work, master="local[1]")
        kill_at_failpoint(submit, INGEST_BEFORE_PUBLISH, work)

    results: list = []
    # Interval 0 runs while the first changes are written.
    writer = workload.in_background(60)
    land_and_ingest(0)
    writer.join()
    workload.add_column()
    touched = workload.touch_toasted(8)
    writer = workload.in_background(60)
    land_and_ingest(1)
    writer.join()

    # The crashes: the Kafka ingest (its next offsets) and the files ingest (interval 2's landed file).
    workload.run(40, pause=0)
    connector.wait_for_records("orders", workload.records)
    land(2)
    before = {table: _summaries(config, table) for table in (KAFKA, FILES)}
    killed(KAFKA, 0)
    killed(FILES, 2)
    assert {table: _summaries(config, table) for table in (KAFKA, FILES)} == before, "a killed run publishes nothing"
    ingest(2)  # the same offsets under the killed run's batch id, and interval 2 under its own

    workload.drop_note()
    touched += workload.touch_toasted(8)
    writer = workload.in_background(60)
    writer.join()
    workload.finish()
    connector.wait_for_records("orders", workload.records)
    land_and_ingest(3)

    streamed = run_stream(spark, config, plan_stream(config, STREAM, AVAILABLE_NOW))
    assert streamed.micro_batches > 1 and streamed.committed == streamed.micro_batches

    expected = workload.rows()
    for table in (FILES, KAFKA, STREAM):
        got = _iceberg_rows(config, table)
        assert sorted(got) == sorted(expected), f"{table}: the live keys"
        mismatched = [k for k in expected if got[k] != expected[k]]
        assert not mismatched, f"{table}: {mismatched[:3]}: {[(got[k], expected[k]) for k in mismatched[:2]]}"
    committed = [r for r in results if r.status == "committed"]
    assert all(r.quarantined == 0 for r in results)
    assert sum(r.skipped for r in results) >= 2 * workload.statements["delete"], "tombstones counted and skipped (twice)"
    assert any(r.columns_changed == ["add channel STRING"] for r in committed)
    assert any(r.keys < r.changes for r in committed), "several changes of one key reduced to the last"
    unsent = [r for r in read_topic(kafka_broker.bootstrap_servers, topic) if r.value and PLACEHOLDER.encode() in r.value]
    assert touched > 0 and len(unsent) >= touched, "updates that left a TOASTed doc alone sent the placeholder"
    assert workload.changed_after_drop and any(row["note"] is not None for row in expected.values()), \
        "rows changed since the drop (note null) and rows not (note kept)"
    offsets = parse_offsets(_summaries(config, KAFKA)[0][offsets_property(topic)])
    assert offsets == {0: workload.records}, "the last commit recorded the topic's end"
    assert parse_offsets(_summaries(config, STREAM)[0][offsets_property(topic)]) == offsets
    kafka_batches = [s["lakeops.batch-id"] for s in _summaries(config, KAFKA) if "lakeops.batch-id" in s]
    assert len(kafka_batches) == len(set(kafka_batches)), "no batch published twice"
    print(f"\n{len(expected)} rows, {workload.records} Kafka records from {workload.statements} statements and 25 snapshot "
          f"rows; {len(results)} ingest runs and two killed spark-submits in {time.monotonic() - started:.0f} s")
