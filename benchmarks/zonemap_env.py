"""The benchmark's own catalog and tables: a fresh embedded catalog under a work folder, one
events-shaped table per variant, all reading the same landing zone."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lakeops.catalog import SPARK_EXTENSIONS, spark_catalog_conf
from lakeops.config import LakeopsConfig, parse_config

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ZONEMAP = {"columns": ["event_time", "user_id", "country", "event_type"], "bloom_columns": ["user_id"]}
NO_ZONEMAP: dict[str, list[str]] = {"columns": [], "bloom_columns": []}


def events_table(zonemap: dict[str, Any]) -> dict[str, Any]:
    return {"schema": "events", "source": "events", "partition_by": ["day(event_time)"], "sort_by": ["event_time"],
            "zonemap": zonemap}


def bench_config(work_dir: Path, tables: dict[str, dict[str, Any]]) -> LakeopsConfig:
    """A config of its own: catalog name, SQLite file, warehouse and landing zone under work_dir."""
    return parse_config({"catalog": {"name": f"bench{uuid.uuid4().hex[:8]}", "namespace": "lakeops",
                                     "data_dir": str(work_dir / "data")},
                         "tables": tables}, work_dir)


def with_catalog(session: SparkSession, config: LakeopsConfig) -> SparkSession:
    """Register config's catalog on a session (catalog settings are runtime SQL settings)."""
    for key, value in spark_catalog_conf(config.catalog).items():
        if value != SPARK_EXTENSIONS:
            session.conf.set(key, value)
    return session


def writer_session(spark: SparkSession, config: LakeopsConfig) -> SparkSession:
    """A session of its own per concurrent writer: the ingest sets spark.wap.id per session, so
    writers sharing one session would stage under each other's batch id."""
    return with_catalog(spark.newSession(), config)
