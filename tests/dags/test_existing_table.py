"""A table lakeops did not create, in a SQL catalog on a real PostgreSQL server (credentials in an Airflow
connection), maintained end to end through the rendered DAGs (dag.test()): a custom schema in a two-level
namespace, partitioned by transforms of its own columns, written by pyiceberg appends and by Spark SQL UPDATE and
DELETE in merge-on-read mode, with its retention in its own table properties. Health sees its delete files,
compaction folds them, expiry applies the table-property retention, a zonemap is built from its manifests and
prunes; after each step the rows equal those read before it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pyarrow as pa
import pytest
import yaml
from pyiceberg import expressions as E
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import BucketTransform, HourTransform
from pyiceberg.types import DecimalType, LongType, NestedField, StringType, TimestamptzType

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.dag_runs import load_dag, run_dag_test
from lakeops.health.history import open_history
from lakeops.zonemap.candidates import candidate_files
from tests.conftest import register_catalog

pytestmark = [pytest.mark.airflow, pytest.mark.spark]

TABLE = "lake.sales.orders"
SCHEMA = Schema(
    NestedField(1, "order_id", LongType(), required=True),
    NestedField(2, "account_id", LongType(), required=True),
    NestedField(3, "ts", TimestamptzType(), required=True),
    NestedField(4, "amount", DecimalType(10, 2), required=False),
    NestedField(5, "note", StringType(), required=False),
    identifier_field_ids=[1],
)
SPEC = PartitionSpec(PartitionField(2, 1000, BucketTransform(16), "account_bucket"),
                     PartitionField(3, 1001, HourTransform(), "ts_hour"))
BASE = datetime(2026, 11, 21, 8, 0, tzinfo=UTC)


def _batch(first: int, count: int) -> pa.Table:
    ids = list(range(first, first + count))
    return pa.table({
        "order_id": pa.array(ids, pa.int64()),
        "account_id": pa.array([i % 40 for i in ids], pa.int64()),
        "ts": pa.array([BASE + timedelta(minutes=i % 180) for i in ids], pa.timestamp("us", tz="UTC")),
        "amount": pa.array([Decimal(i % 997) / 10 for i in ids], pa.decimal128(10, 2)),
        "note": pa.array([f"order {i}" for i in ids], pa.string()),
    }, schema=pa.schema([pa.field("order_id", pa.int64(), nullable=False), pa.field("account_id", pa.int64(), nullable=False),
                         pa.field("ts", pa.timestamp("us", tz="UTC"), nullable=False), pa.field("amount", pa.decimal128(10, 2)),
                         pa.field("note", pa.string())]))


@pytest.fixture()
def existing(spark, tmp_path, monkeypatch, postgres_server, postgres_database):
    """The user's config (their catalog and table named, nothing else) and their table, written by two other writers.

    The catalog is Iceberg's JDBC catalog (pyiceberg's SqlCatalog) in a PostgreSQL database of its own; its login
    is in the Airflow connection the catalog block names, as an operator would keep it."""
    connection = {"conn_type": "postgres", "login": postgres_server.superuser, "password": postgres_server.password}
    monkeypatch.setenv("AIRFLOW_CONN_USER_LAKE_DB", json.dumps(connection))
    for name in ("LAKEOPS_CATALOG_USER", "LAKEOPS_CATALOG_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "lakeops.yaml"
    path.write_text(yaml.safe_dump({
        "catalog": {"kind": "sql", "name": "user_lake", "namespace": "default", "conn_id": "user_lake_db",
                    "uri": f"postgresql://{postgres_server.host}:{postgres_server.port}/{postgres_database}",
                    "warehouse": (tmp_path / "warehouse").as_uri()},
        "health": {"history_url": f"sqlite:///{tmp_path / 'health.db'}"},
        "tables": {TABLE: {"zonemap": {"columns": ["ts", "account_id"], "bloom_columns": ["account_id"]},
                           "compaction": {"trigger": "schedule"}}},
    }))
    monkeypatch.setenv("LAKEOPS_CONFIG", str(path))
    config = load_config()
    catalog = load_catalog(config.catalog)
    catalog.create_namespace("lake")
    catalog.create_namespace("lake.sales")
    table = catalog.create_table(TABLE, schema=SCHEMA, partition_spec=SPEC,
                                 properties={"format-version": "2", "write.delete.mode": "merge-on-read",
                                             "write.update.mode": "merge-on-read", "write.merge.mode": "merge-on-read"})
    for first in range(0, 1200, 200):  # six pyiceberg appends
        table.append(_batch(first, 200))
    session = register_catalog(spark, config)
    qualified = config.qualified(TABLE)
    for step in range(4):  # Spark SQL row-level changes: position delete files, merge-on-read
        session.sql(f"UPDATE {qualified} SET note = 'updated {step}' WHERE order_id % 7 = {step}")
        session.sql(f"DELETE FROM {qualified} WHERE order_id % 50 = {step}")
    # Retention tuned from another engine: the table's own properties, Iceberg's keys.
    session.sql(f"ALTER TABLE {qualified} SET TBLPROPERTIES ('history.expire.max-snapshot-age-ms' = '3600000', "
                "'history.expire.min-snapshots-to-keep' = '2')")
    return config, session


def _rows(session, config) -> list[tuple]:
    session.catalog.refreshTable(config.qualified(TABLE))
    return sorted(tuple(r) for r in session.sql(f"SELECT * FROM {config.qualified(TABLE)}").collect())


def _states(run) -> dict[tuple[str, str | None], str]:
    return {(ti.task_id, ti.rendered_map_index): str(ti.state) for ti in run.get_task_instances()}


def test_a_table_lakeops_did_not_create_is_maintained_through_the_dags(airflow_db, existing):
    config, session = existing
    rows = _rows(session, config)
    assert len(rows) == 1200 - 4 * 24  # order_id % 50 in {0, 1, 2, 3}: 24 each of 1200

    health = run_dag_test(load_dag("table_health"), datetime.now(UTC))
    assert str(health.state) == "success", _states(health)
    [before] = open_history(config).read(TABLE)[-1:]
    assert before.delete_files > 0 and before.data_files > 0
    assert _rows(session, config) == rows

    compact = run_dag_test(load_dag("compact_tables"), datetime.now(UTC))
    states = _states(compact)
    assert str(compact.state) == "success", states
    assert states[("read_amplification", TABLE)] == "success" and states[("compact", TABLE)] == "success", states
    catalog = load_catalog(config.catalog)
    assert str(run_dag_test(load_dag("table_health"), datetime.now(UTC) + timedelta(hours=2)).state) == "success"
    after = open_history(config).read(TABLE)[-1]
    assert after.applied_delete_files < before.applied_delete_files and after.read_amp_files < before.read_amp_files
    assert _rows(session, config) == rows

    snapshots = len(catalog.load_table(TABLE).snapshots())
    assert snapshots > 2
    # Every snapshot is minutes old: the run expires what is older than now, keeping what the table's own
    # history.expire.min-snapshots-to-keep says (the config names no retention).
    expiry = run_dag_test(load_dag("expire_snapshots"), datetime.now(UTC), {"older_than": datetime.now(UTC).isoformat()})
    assert str(expiry.state) == "success", _states(expiry)
    assert _states(expiry)[("expire", TABLE)] == "success"
    # min-snapshots-to-keep kept two.
    assert len(catalog.load_table(TABLE).snapshots()) == 2
    assert _rows(session, config) == rows

    # What the table-health page shows of these runs, read from Airflow's records (task instances and the jobs'
    # results as XComs): each run's plan, what it did and the figures before and after.
    from lakeops.ui.runs import summarize
    from lakeops_airflow.airflow_records import maintenance_runs

    shown = {r.dag_id: summarize(r) for r in maintenance_runs(TABLE, ["compact_tables", "expire_snapshots"])}
    assert shown["compact_tables"].run_id == compact.run_id and shown["expire_snapshots"].run_id == expiry.run_id
    for run in shown.values():
        assert run.state == "success" and run.plan and run.did and run.figures, run

    daily = run_dag_test(load_dag("zonemap_daily"), datetime.now(UTC) + timedelta(days=2))
    assert str(daily.state) == "success", _states(daily)
    table = catalog.load_table(TABLE)
    live = list(table.scan().plan_files())
    found = candidate_files(table, E.EqualTo("account_id", 7))
    assert found.coverage == 1.0, "the index was built from the manifests of a table that never had micro zonemaps"
    assert 0 < len(found.files) < len(live), f"pruned to {len(found.files)} of {len(live)} files"
    wanted = sorted(r for r in rows if r[1] == 7)
    read = sorted(tuple(r.values()) for r in table.scan(row_filter=E.EqualTo("account_id", 7)).to_arrow().to_pylist())
    assert [r[0] for r in read] == [r[0] for r in wanted]
    assert _rows(session, config) == rows


def test_discovery_maintains_a_table_created_between_two_runs(airflow_db, spark, tmp_path, monkeypatch):
    path = tmp_path / "lakeops.yaml"
    path.write_text(yaml.safe_dump({"catalog": {"name": "discovered_lake", "data_dir": str(tmp_path / "data")},
                                    "discover": [{"namespaces": ["analytics"], "exclude": ["tmp_*"]}]}))
    monkeypatch.setenv("LAKEOPS_CONFIG", str(path))
    config = load_config()
    catalog = load_catalog(config.catalog)
    catalog.create_namespace("analytics")
    schema = pa.schema([("id", pa.int64())])
    catalog.create_table("analytics.clicks", schema=schema).append(pa.table({"id": [1, 2]}))
    catalog.create_table("analytics.tmp_scratch", schema=schema).append(pa.table({"id": [3]}))

    first = run_dag_test(load_dag("table_health"), datetime.now(UTC))
    assert str(first.state) == "success"
    assert open_history(config).tables() == ["analytics.clicks"]

    catalog.create_table("analytics.sessions", schema=schema).append(pa.table({"id": [4]}))  # no config edit, no DAG edit
    second = run_dag_test(load_dag("table_health"), datetime.now(UTC) + timedelta(minutes=15))
    assert str(second.state) == "success"
    assert open_history(config).tables() == ["analytics.clicks", "analytics.sessions"]
    assert second.get_task_instance("evaluate").xcom_pull()["evaluated"] == ["analytics.sessions"]
