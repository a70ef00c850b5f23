"""A table lakeops did not create, for the command line to work on: `lake.sales.orders` in a two-level
namespace, created and appended by pyiceberg, partitioned by truncate(4, account_id) and hour(ts), then
tuned with ALTER TABLE ... SET TBLPROPERTIES and changed by Spark SQL UPDATE and DELETE in merge-on-read
mode. Beside it: a discovered table without zonemap columns and a configured table not created yet."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml

from tests.conftest import config_data, register_catalog

LAKEOPS = str(Path(sys.executable).parent / "lakeops")
TABLE = "lake.sales.orders"
DISCOVERED = "lake.raw.clicks"
NOT_CREATED = "lake.sales.refunds"
MOR = {"write.delete.mode": "merge-on-read", "write.update.mode": "merge-on-read", "write.merge.mode": "merge-on-read"}
PROPERTIES = {
    "lakeops.compaction.delete-file-threshold": "1",  # overrides the config default (5)
    "history.expire.min-snapshots-to-keep": "2",  # Iceberg's own key: retention.min_snapshots
    "lakeops.freshness-sla-minutes": "90",  # the config entry (45) overrides it
}
START = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Lake:
    config_path: Path
    landing: Path
    catalog: Any

    def run(self, *args: str, expect: int | None = 0) -> subprocess.CompletedProcess[str]:
        """`lakeops --config <file> ARGS` as a subprocess; its exit status checked against `expect`."""
        done = subprocess.run([LAKEOPS, "--config", str(self.config_path), *args], capture_output=True, text=True,
                              env=os.environ.copy(), timeout=600)
        if expect is not None:
            assert done.returncode == expect, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr[-4000:]}"
        return done

    def json(self, *args: str) -> dict[str, Any]:
        """The one JSON document `lakeops --json ARGS` prints on stdout."""
        return json.loads(self.run("--json", *args).stdout)

    def table(self):
        return self.catalog.load_table(TABLE)

    def rows(self) -> list[tuple]:
        """Every row, as pyiceberg reads it (position deletes applied), in order."""
        data = self.table().scan().to_arrow().sort_by("order_id")
        return [tuple(r.values()) for r in data.to_pylist()]


def _config(base: Path) -> dict[str, Any]:
    data = config_data(base, tables={
        TABLE: {"source": "orders", "freshness_sla_minutes": 45, "zonemap": {"columns": ["ts", "account_id"]},
                # any share of deleted rows rewrites a partition, so one compaction folds every delete file
                "compaction": {"delete_ratio_threshold": 0.01}},
        NOT_CREATED: {},
    })
    data["landing_dir"] = str(base / "landing")
    data["defaults"] = {"compaction": {"delete_file_threshold": 5}, "freshness_sla_minutes": 30}
    data["discover"] = [{"namespaces": ["lake.raw"], "include": ["*"]}]
    return data


def _orders(first: int, count: int):
    import pyarrow as pa

    base = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=1)
    ids = list(range(first, first + count))
    return pa.table({
        "order_id": pa.array(ids, pa.int64()),
        "account_id": pa.array([i % 13 for i in ids], pa.int64()),
        "ts": pa.array([base + timedelta(minutes=(i * 7) % 120) for i in ids], pa.timestamp("us", tz="UTC")),
        "amount": pa.array([round(i * 1.25, 2) for i in ids], pa.float64()),
        "status": pa.array(["new"] * count, pa.string()),
    })


def _append(table, data) -> None:
    """Append `data` with pyiceberg, one Parquet file per partition committed by add_files: pyiceberg's
    table.append computes transformed partition values with pyiceberg-core, which requirements.lock does
    not install, while add_files infers them from each file's bounds (order-preserving transforms only, so
    truncate rather than bucket)."""
    from uuid import uuid4

    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyiceberg.transforms import HourTransform, TruncateTransform
    from pyiceberg.types import LongType, TimestamptzType
    from pyiceberg.utils.datetime import datetime_to_micros

    truncate, hour = TruncateTransform(4).transform(LongType()), HourTransform().transform(TimestamptzType())
    groups: dict[tuple[int, int], list[dict]] = {}
    for row in data.to_pylist():
        groups.setdefault((truncate(row["account_id"]), hour(datetime_to_micros(row["ts"]))), []).append(row)
    folder = Path(urlparse(table.location()).path) / "data" / "pyiceberg"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for rows in groups.values():
        path = folder / f"{uuid4().hex}.parquet"
        pq.write_table(pa.Table.from_pylist(rows, schema=data.schema), path)
        paths.append(path.as_uri())
    table.add_files(paths)


def _create(catalog) -> None:
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import HourTransform, TruncateTransform
    from pyiceberg.types import DoubleType, LongType, NestedField, StringType, TimestamptzType

    schema = Schema(*(NestedField(i, name, kind, required=False) for i, (name, kind) in enumerate(
        [("order_id", LongType()), ("account_id", LongType()), ("ts", TimestamptzType()), ("amount", DoubleType()),
         ("status", StringType())], 1)))
    spec = PartitionSpec(PartitionField(2, 1000, TruncateTransform(4), "account_trunc"),
                         PartitionField(3, 1001, HourTransform(), "ts_hour"))
    for namespace in ("lake", "lake.sales", "lake.raw"):
        catalog.create_namespace_if_not_exists(namespace)
    orders = catalog.create_table(TABLE, schema, partition_spec=spec, properties={"format-version": "2", **MOR})
    _append(orders, _orders(0, 400))
    _append(catalog.load_table(TABLE), _orders(400, 400))
    clicks = catalog.create_table(DISCOVERED, Schema(NestedField(1, "id", LongType(), required=False)))
    clicks.append(_orders(0, 3).select(["order_id"]).rename_columns(["id"]))


@pytest.fixture(scope="module")
def lake(spark, tmp_path_factory) -> Lake:
    from lakeops.catalog import load_catalog
    from lakeops.config import load_config

    base = tmp_path_factory.mktemp("cli")
    config_path = base / "lakeops.yaml"
    config_path.write_text(yaml.safe_dump(_config(base)))
    config = load_config(config_path)
    catalog = load_catalog(config.catalog)
    _create(catalog)
    register_catalog(spark, config)
    qualified = config.qualified(TABLE)
    spark.sql(f"ALTER TABLE {qualified} SET TBLPROPERTIES ({', '.join(f'{k!r}={v!r}' for k, v in PROPERTIES.items())})")
    spark.sql(f"UPDATE {qualified} SET status = 'shipped', amount = amount + 1 WHERE order_id % 10 = 0")
    spark.sql(f"DELETE FROM {qualified} WHERE order_id % 7 = 0")
    return Lake(config_path, base / "landing", catalog)
