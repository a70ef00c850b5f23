"""A CDC table with real position delete files, built by the CDC ingest job itself."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

from lakeops.catalog import load_catalog
from lakeops.compaction.plan import plan_table
from lakeops.generator import generate_cdc
from lakeops.health.compute import compute_health
from lakeops.ingest.plan import plan_ingest
from lakeops.spark.ingest_cdc import run_cdc_ingest

START = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
FIVE = timedelta(minutes=5)
KEYS = {"users": "user_id", "orders": "order_id"}


def land_and_merge(spark, config, table: str, intervals: int, per_minute: int = 60, seed: int = 31, merge: int | None = None):
    """Land `intervals` x 5 minutes of changes and merge the first `merge` intervals (all by default)."""
    stats = generate_cdc(config.landing_root, START, intervals * 5, per_minute, seed=seed, delete_fraction=0.2)
    for i in range(intervals if merge is None else merge):
        start = START + i * FIVE
        run_cdc_ingest(spark, config, table, plan_ingest(config, table, start, start + FIVE))
    return stats


def keys(spark, config, table: str) -> list[int]:
    return sorted(r[0] for r in spark.table(config.qualified(table)).select(KEYS[table]).collect())


def health_and_plan(config, table: str, **policy):
    """(health, plan, pyiceberg table) of `table` now, under its policy with `policy`'s overrides."""
    spec = config.table(table)
    loaded = load_catalog(config.catalog).load_table(config.identifier(table))
    chosen = dataclasses.replace(spec.compaction, **policy)
    health = compute_health(loaded, chosen)
    return health, plan_table(health, chosen, sort_columns=spec.zonemap.columns), loaded
