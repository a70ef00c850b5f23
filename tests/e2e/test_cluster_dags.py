"""The ingest, consolidation and compaction DAGs on real services: Airflow's SparkSubmitOperator
submits to a Spark standalone cluster (one master, two workers) on loopback, with the library
shipped as --py-files; the jobs commit through Iceberg's REST catalog server to S3 (S3Proxy);
boto3 checks the bucket and the zonemap objects on S3. Exactly-once re-runs are covered by
tests/dags on local Spark; one run of each DAG here keeps the module within a few minutes.

The landing zone is on S3 too: events and CDC changes are generated locally and uploaded with
boto3 under s3a://lakeops/landing/, which the jobs list and read through Hadoop's S3A file system.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.dag_runs import load_dag, run_dag_test
from lakeops.generator import generate_cdc, generate_events
from lakeops.health.compute import table_health
from tests.e2e.conftest import BUCKET, LANDING_PREFIX
from tests.e2e.servers import http_json

pytestmark = [pytest.mark.e2e, pytest.mark.airflow, pytest.mark.spark]

ARRIVAL = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
TICK = datetime(2026, 11, 21, 10, 5, tzinfo=UTC)


def _objects(client, prefix: str) -> list[str]:
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix)
    # S3Proxy's filesystem backend lists the folder markers pyarrow creates ("…/micro/"): not objects of ours.
    return [o["Key"] for page in pages for o in page.get("Contents", []) if not o["Key"].endswith("/")]


def _land(stack, generated: Path, stream: str = "") -> None:
    """Upload what a generator wrote under `generated` (one stream's folder when `stream` is given)
    to the S3 landing zone, same layout."""
    client = stack.s3_client()
    prefix = f"{LANDING_PREFIX}/{stream}".rstrip("/")
    for path in sorted(p for p in generated.rglob("*") if p.is_file()):
        client.upload_file(str(path), BUCKET, f"{prefix}/{path.relative_to(generated).as_posix()}")


def test_ingest_dag_on_spark_cluster_rest_catalog_and_s3(stack):
    config = load_config()
    assert config.catalog.kind == "rest" and config.catalog.uri == stack.rest_uri
    assert config.landing_root == stack.landing
    generated = stack.work_dir / "generated"
    landed = generate_events(str(generated), ARRIVAL, 5, 200, seed=33, bad_fraction=0.02)
    _land(stack, generated)
    client = stack.s3_client()
    assert len(_objects(client, f"{LANDING_PREFIX}/events/")) == 5

    run = run_dag_test(load_dag("ingest.lakeops.events"), TICK)
    assert str(run.state) == "success"

    # The rows, read back through the REST catalog with pyiceberg (S3 via pyarrow).
    catalog = load_catalog(config.catalog)
    table = catalog.load_table(config.identifier("events"))
    ids = table.scan(selected_fields=("event_id",)).to_arrow().column("event_id").to_pylist()
    assert len(ids) == landed.good and set(ids) == landed.good_event_ids
    quarantine = catalog.load_table(config.identifier("events_quarantine"))
    bad = quarantine.scan().to_arrow()
    assert bad.num_rows == landed.bad_total
    assert all(f.startswith(f"s3a://{BUCKET}/{LANDING_PREFIX}/events/") for f in bad.column("source_file").to_pylist())
    snapshot = table.current_snapshot()
    assert snapshot is not None and snapshot.summary["lakeops.rows"] == str(landed.good)

    # Everything is on S3: table data and metadata under the warehouse, the micro zonemap beside them.
    assert table.location().startswith(f"s3://{BUCKET}/warehouse/")
    prefix = table.location().removeprefix(f"s3://{BUCKET}/")
    keys = _objects(client, prefix + "/")
    data_files = [k for k in keys if "/data/" in k and k.endswith(".parquet")]
    assert data_files and any("/metadata/" in k and k.endswith(".metadata.json") for k in keys)
    zonemaps = _objects(client, f"{prefix}/_zonemaps/")
    assert zonemaps == [f"{prefix}/_zonemaps/micro/{snapshot.snapshot_id}.parquet"]
    body = client.get_object(Bucket=BUCKET, Key=zonemaps[0])["Body"].read()
    entries = pq.read_table(io.BytesIO(body))
    live = {f.file.file_path for f in table.scan().plan_files()}
    assert set(entries.column("file_path").to_pylist()) == live
    assert sum(entries.column("record_count").to_pylist()) == landed.good

    # The job ran on the cluster, with executors on both workers.
    master = http_json(f"{stack.spark.master_ui}/json")
    assert any(app["name"] == "lakeops ingest lakeops.events" for app in master["completedapps"]), master["completedapps"]
    for worker_ui in stack.spark.worker_uis:
        worker = http_json(f"{worker_ui}/json")
        assert worker["finishedexecutors"] or worker["executors"], f"no executor ran on {worker_ui}"


def test_hourly_zonemap_consolidation_on_the_cluster(stack):
    """After the ingest above: the zonemap_hourly DAG on the same cluster reads the micro zonemaps
    from S3 (Spark, through S3A) and publishes the hourly level there."""
    from lakeops.zonemap.levels import HOURLY
    from lakeops.zonemap.snapmap import read_map
    from lakeops.zonemap.store import zonemap_root

    config = load_config()
    table = load_catalog(config.catalog).load_table(config.identifier("events"))
    snapshot = table.current_snapshot()
    assert snapshot is not None, "the ingest test of this module runs first and commits"
    committed = datetime.fromtimestamp(snapshot.timestamp_ms / 1000, tz=UTC)
    hour = committed.replace(minute=0, second=0, microsecond=0)

    # The hourly cron ticks at HH:05: the run ending at HH+1:05 consolidates hour HH.
    run = run_dag_test(load_dag("zonemap_hourly"), hour + timedelta(hours=1, minutes=5))
    assert str(run.state) == "success"

    versions = read_map(zonemap_root(table.location()), HOURLY)
    assert versions and versions[-1].period == hour.strftime("%Y-%m-%dT%H")
    prefix = table.location().removeprefix(f"s3://{BUCKET}/")
    hourly = _objects(stack.s3_client(), f"{prefix}/_zonemaps/hourly/")
    assert hourly and versions[-1].path.removeprefix(f"s3://{BUCKET}/") in hourly
    entries = pq.read_table(io.BytesIO(stack.s3_client().get_object(
        Bucket=BUCKET, Key=versions[-1].path.removeprefix(f"s3://{BUCKET}/"))["Body"].read()))
    assert set(entries.column("file_path").to_pylist()) == {f.file.file_path for f in table.scan().plan_files()}


CDC_ARRIVAL = datetime(2026, 11, 21, 11, 0, tzinfo=UTC)
FIVE = timedelta(minutes=5)


def test_cdc_and_compaction_dags_on_the_cluster(stack):
    """Two CDC intervals merged on the cluster leave real position delete files in `orders` (on S3,
    through the REST catalog); the compact_tables DAG's sensors read that metadata with pyiceberg,
    fire, and its Spark job folds the deletes away on the cluster without changing a row."""
    config = load_config()
    generated = stack.work_dir / "generated-cdc"
    # Seed and delete share chosen so the second MERGE deletes over 30% of the partition's rows
    # (Iceberg's delete-ratio-threshold, a planner rule): the sensors fire and the plan has work.
    stats = generate_cdc(str(generated), CDC_ARRIVAL, 10, 30, seed=19, delete_fraction=0.3)
    # Only orders is landed: its own ingest DAG merges it.
    _land(stack, generated / "cdc" / "orders", "cdc/orders")
    for tick in (CDC_ARRIVAL + FIVE, CDC_ARRIVAL + 2 * FIVE):
        run = run_dag_test(load_dag("ingest.lakeops.orders"), tick)
        assert str(run.state) == "success", {ti.task_id: str(ti.state) for ti in run.get_task_instances()}

    orders = load_catalog(config.catalog).load_table(config.identifier("orders"))
    ids = sorted(orders.scan(selected_fields=("order_id",)).to_arrow().column("order_id").to_pylist())
    assert ids == sorted(stats.live["orders"])
    assert orders.location().startswith(f"s3://{BUCKET}/warehouse/")
    before = table_health(config, "orders")
    assert before.delete_files > 0, "the second interval's MERGE wrote no position delete file"

    run = run_dag_test(load_dag("compact_tables"), CDC_ARRIVAL.replace(hour=13),
                       run_conf={"tables": ["orders"], "dry_run": False})

    states = {ti.task_id: str(ti.state) for ti in run.get_task_instances()}
    assert str(run.state) == "success" and states["compact"] == "success", states  # one mapped task: lakeops.orders
    after = table_health(config, "orders")
    print(f"compact_tables on the cluster: data files {before.data_files} -> {after.data_files}, applied delete files "
          f"{before.applied_delete_files} -> {after.applied_delete_files}, "
          f"read amplification {before.read_amp_files:.2f} -> {after.read_amp_files:.2f}")
    assert after.applied_delete_files < before.applied_delete_files and after.read_amp_files < before.read_amp_files
    orders = load_catalog(config.catalog).load_table(config.identifier("orders"))
    assert orders.current_snapshot().summary.operation.value in ("replace", "delete")  # a rewrite, not a write
    ids_after = sorted(orders.scan(selected_fields=("order_id",)).to_arrow().column("order_id").to_pylist())
    assert ids_after == ids
    # The rewritten files are on S3 and the compaction job ran on the cluster.
    assert all(t.file.file_path.startswith(f"s3://{BUCKET}/warehouse/") for t in orders.scan().plan_files())
    master = http_json(f"{stack.spark.master_ui}/json")
    assert any(app["name"] == "lakeops compact lakeops.orders" for app in master["completedapps"]), master["completedapps"]
