"""Real table history for maintenance DAG tests: the events ingest job's library functions run
in-process over many one-minute intervals of landed events (one snapshot per interval)."""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta

from lakeops.config import LakeopsConfig
from lakeops.generator import generate_events
from lakeops.ingest.plan import plan_ingest
from lakeops.spark.ingest_events import run_ingest

log = logging.getLogger(__name__)


def ingest_minutes(spark, config: LakeopsConfig, start: datetime, minutes: int, events_per_minute: int = 4) -> float:
    """Land `minutes` minutes of events and ingest each minute as its own batch; returns the seconds taken."""
    generate_events(config.landing_root, start, minutes, events_per_minute, seed=5, bad_fraction=0.0, late_fraction=0.0)
    began = time.perf_counter()
    for i in range(minutes):
        moment = start + timedelta(minutes=i)
        run_ingest(spark, config, "events", plan_ingest(config, "events", moment, moment + timedelta(minutes=1)))
    took = time.perf_counter() - began
    log.info("history: %d one-minute ingest batches in %.1f s (%.2f s each)", minutes, took, took / max(minutes, 1))
    return took


def tiny_batches(spark, config: LakeopsConfig, start: datetime, count: int, rows: int = 2) -> float:
    """`count` micro-batches of `rows` events, each committed as its own snapshot carrying its batch id:
    small Parquet files appended through Iceberg's Java API in the running session (no Spark job per
    batch, which keeps a history of hundreds of snapshots affordable in a test). Returns seconds taken."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyiceberg.io.pyarrow import schema_to_pyarrow

    from lakeops.catalog import load_catalog
    from lakeops.ingest.plan import batch_id

    table = load_catalog(config.catalog).load_table(config.identifier("events"))
    arrow_schema = schema_to_pyarrow(table.schema())  # carries the field ids Iceberg reads by
    jvm = spark.sparkContext._jvm
    jtable = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, config.qualified("events"))
    data_dir = table.location().removeprefix("file://") + "/data"
    began = time.perf_counter()
    for i in range(count):
        moment = start + timedelta(minutes=i)
        partition = f"event_time_day={moment.date().isoformat()}"
        path = f"{data_dir}/{partition}/tiny-{moment:%Y%m%dT%H%M}.parquet"
        events = [{"event_id": f"tiny-{moment:%Y%m%dT%H%M}-{j}", "user_id": j, "session_id": f"s{j}", "event_time": moment,
                   "event_type": "view", "page": "/", "device": "web", "country": "DE", "properties": {},
                   "ingested_at": moment} for j in range(rows)]
        import os

        os.makedirs(os.path.dirname(path), exist_ok=True)
        pq.write_table(pa.Table.from_pylist(events, schema=arrow_schema), path)
        data_file = (jvm.org.apache.iceberg.DataFiles.builder(jtable.spec()).withPath(f"file:{path}")
                     .withFileSizeInBytes(os.path.getsize(path)).withRecordCount(rows)
                     .withPartitionPath(partition).withFormat("PARQUET").build())
        (jtable.newFastAppend().appendFile(data_file)
         .set("lakeops.batch-id", batch_id("events", moment, moment + timedelta(minutes=1)))
         .set("lakeops.rows", str(rows)).commit())
    took = time.perf_counter() - began
    log.info("history: %d tiny batches in %.1f s (%.3f s each)", count, took, took / max(count, 1))
    return took
