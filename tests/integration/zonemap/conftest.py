"""An events table per test, written batch by batch with Spark, each batch followed (or not) by its
micro zonemap, as the ingest job does after its commit."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from lakeops.catalog import load_catalog
from lakeops.config import LakeopsConfig, TableConfig
from lakeops.spark.ingest_events import ensure_tables
from lakeops.zonemap.micro import write_micro_zonemap
from tests.conftest import make_test_config, register_catalog

T0 = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
COUNTRIES = ["BR", "DE", "FR", "GB", "IN", "US"]
TYPES = ["click", "view", "purchase", "signup"]


def hour_of(table: Any, snapshot_id: int) -> datetime:
    """The start of the UTC hour in which a snapshot was committed."""
    ms = table.snapshot_by_id(snapshot_id).timestamp_ms
    return datetime.fromtimestamp(ms // 3_600_000 * 3600, tz=UTC)


def commit_day(table: Any) -> date:
    """The UTC day of the current commit: a daily run's scope follows commit time, not event time,
    so a test's day must come from the clock the commits read, never from a fixed date."""
    return hour_of(table, table.current_snapshot().snapshot_id).date()


def event_rows(n: int, seed: int, start: datetime = T0, users: int = 500) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [{
        "event_id": f"e{seed}-{i}", "user_id": rng.randrange(users), "session_id": f"s{rng.randrange(50)}",
        "event_time": start + timedelta(seconds=rng.randrange(3600)), "event_type": rng.choice(TYPES),
        "page": f"https://shop.example.com/products/{rng.randrange(40):04d}", "device": rng.choice(["ios", "web", None]),
        "country": rng.choice(COUNTRIES + [None]), "properties": {}, "ingested_at": start,
    } for i in range(n)]


@dataclass
class EventsTable:
    spark: Any
    config: LakeopsConfig
    spec: TableConfig

    @property
    def name(self) -> str:
        return self.config.qualified("events")

    def load(self):
        return load_catalog(self.config.catalog).load_table(self.config.identifier("events"))

    def append(self, rows: list[dict[str, Any]], zonemap: bool = True) -> int:
        """Commit rows as one snapshot (one file per day partition); write its micro zonemap unless told not to."""
        schema = self.spark.table(self.name).schema
        frame = self.spark.createDataFrame([tuple(r.get(f.name) for f in schema.fields) for r in rows], schema)
        frame.coalesce(1).writeTo(self.name).append()
        table = self.load()
        snapshot = table.current_snapshot().snapshot_id
        if zonemap:
            write_micro_zonemap(table, self.spec, snapshot)
        return snapshot

    def ids(self, where: str = "true") -> list[str]:
        return sorted(r[0] for r in self.spark.sql(f"SELECT event_id FROM {self.name} WHERE {where}").collect())


def make_events_table(spark, base_dir, zonemap: dict | None = None, partition_by: list[str] | None = None) -> EventsTable:
    import yaml

    from tests.conftest import PROJECT_ROOT

    tables = yaml.safe_load((PROJECT_ROOT / "include" / "lakeops.yaml").read_text())["tables"]
    if zonemap is not None:
        tables["lakeops.events"]["zonemap"] = zonemap
    if partition_by is not None:
        tables["lakeops.events"]["create"]["partition_by"] = partition_by
    config = make_test_config(base_dir, tables)
    register_catalog(spark, config)
    ensure_tables(spark, load_catalog(config.catalog), config, "events")
    return EventsTable(spark, config, config.table("events"))


@pytest.fixture()
def events(spark, tmp_path) -> EventsTable:
    return make_events_table(spark, tmp_path)
