"""An events table per test with a downstream table registered in the config, written batch by
batch with Spark (one snapshot each, its micro zonemap after the commit, as the ingest job does)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import yaml

from lakeops.catalog import load_catalog
from lakeops.config import LakeopsConfig
from lakeops.spark.ingest_events import ensure_tables
from lakeops.zonemap.micro import write_micro_zonemap
from tests.conftest import PROJECT_ROOT, make_test_config, register_catalog

T0 = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


@dataclass
class History:
    spark: Any
    config: LakeopsConfig

    @property
    def name(self) -> str:
        return self.config.qualified("events")

    def load(self, table: str = "events"):
        return load_catalog(self.config.catalog).load_table(self.config.identifier(table))

    def append(self, batch: int, rows: int = 20) -> int:
        """One batch as one snapshot (one file per day partition) and its micro zonemap."""
        schema = self.spark.table(self.name).schema
        data = [(f"e{batch}-{i}", i % 7, f"s{i}", T0 + timedelta(minutes=batch, seconds=i), "view", "/p", "web", "DE", {}, T0)
                for i in range(rows)]
        self.spark.createDataFrame(data, schema).coalesce(1).writeTo(self.name).append()
        table = self.load()
        snapshot = table.current_snapshot().snapshot_id
        write_micro_zonemap(table, self.config.table("events"), snapshot)
        return snapshot

    def ids(self, version: int | str | None = None) -> list[str]:
        at = "" if version is None else f" VERSION AS OF {version!r}" if isinstance(version, str) else f" VERSION AS OF {version}"
        return sorted(r[0] for r in self.spark.sql(f"SELECT event_id FROM {self.name}{at}").collect())

    def mark_consumed(self, snapshot_id: int) -> None:
        """The downstream table commits data with its watermark on events, as the ETL job does."""
        target = self.config.qualified("events_copy")
        frame = self.spark.table(self.name).limit(1)
        frame.writeTo(target).option("snapshot-property.lakeops.watermark.events", str(snapshot_id)).append()


def now_ms() -> int:
    return int(time.time() * 1000)


@pytest.fixture()
def history(spark, tmp_path) -> History:
    shipped = yaml.safe_load((PROJECT_ROOT / "include" / "lakeops.yaml").read_text())["tables"]
    events = {**shipped["lakeops.events"], "retention": {"protected_refs": ["audit"]}}
    config = make_test_config(tmp_path, {"events": events, "events_copy": {"create": events["create"]}})
    register_catalog(spark, config)
    catalog = load_catalog(config.catalog)
    ensure_tables(spark, catalog, config, "events")
    ensure_tables(spark, catalog, config, "events_copy")
    return History(spark, config)
