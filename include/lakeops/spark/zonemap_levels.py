"""Run a zonemap consolidation with Spark reading the level's Parquet files (many small micro
files read in parallel); the library decides what to read, reconcile and publish."""

from __future__ import annotations

import logging
from datetime import date, datetime
from typing import TYPE_CHECKING

from lakeops.catalog import load_catalog
from lakeops.config import LakeopsConfig
from lakeops.exceptions import ConfigError
from lakeops.tables.effective import load_effective, zonemap_field_ids
from lakeops.zonemap.consolidate import ConsolidationResult, consolidate_day, consolidate_hour
from lakeops.zonemap.entry import ZonemapEntry
from lakeops.zonemap.store import from_arrow, read_file

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)

ZONEMAP_DDL = ("file_path STRING, snapshot_id BIGINT, record_count BIGINT, file_size BIGINT, partition STRING, "
               "columns ARRAY<STRUCT<field_id: INT, type: STRING, lower: BINARY, upper: BINARY, null_count: BIGINT>>, "
               "blooms ARRAY<STRUCT<field_id: INT, bits: BINARY, hashes: INT>>")


def _key(uri: str) -> str:
    return uri.split("://", 1)[-1].lstrip("/")


def spark_reader(spark: SparkSession):
    """A reader for lakeops.zonemap.consolidate: Spark reads every file at once, skipping corrupt
    ones; a requested file missing from the result is checked alone and, unless it is merely
    empty, reported unreadable (then rebuilt from manifest metrics)."""
    from pyspark.sql import functions as F

    def read(paths: list[str]) -> tuple[list[ZonemapEntry], list[str]]:
        if not paths:
            return [], []
        spark.sparkContext.setJobDescription(f"lakeops zonemap: read {len(paths)} zonemap files")
        frame = (spark.read.schema(ZONEMAP_DDL).option("ignoreCorruptFiles", "true").option("ignoreMissingFiles", "true")
                 .parquet(*paths).withColumn("_source", F.input_file_name()))
        data = frame.toArrow()
        found = {_key(s) for s in data.column("_source").to_pylist()}
        unreadable = []
        for path in paths:
            if _key(path) in found:
                continue
            try:
                read_file(path, columns=["file_path"])  # empty but sound, or gone since listing
            except FileNotFoundError:
                continue
            except Exception as e:  # noqa: BLE001 - any failure to read means: rebuild its entries
                log.warning("zonemap file %s is unreadable (%s); its entries are rebuilt from manifest metrics", path, e)
                unreadable.append(path)
        return from_arrow(data.drop_columns(["_source"])), unreadable

    return read


def run_consolidation(spark: SparkSession, config: LakeopsConfig, table: str, level: str,
                      when: datetime | date) -> ConsolidationResult:
    spec, loaded = load_effective(config, load_catalog(config.catalog), table)
    zonemap_field_ids(spec, loaded)
    spark.sparkContext.setJobDescription(f"lakeops zonemap {level} {table} {when}")
    reader = spark_reader(spark)
    if not spec.zonemap.columns:
        raise ConfigError(f"table {spec.name} has no zonemap columns, so it has no zonemap to consolidate; set "
                          f"zonemap.columns in its config entry or the table property lakeops.zonemap.columns")
    if level == "hourly":
        assert isinstance(when, datetime)
        return consolidate_hour(loaded, spec, when, reader)
    return consolidate_day(loaded, spec, when if not isinstance(when, datetime) else when.date(), reader)


def job_main(argv: list[str], level: str) -> int:
    """The spark-submit entry point of spark_jobs/zonemap_<level>.py: --table and --hour or --day."""
    import argparse

    from lakeops.config import load_config
    from lakeops.spark.job import run_job
    from lakeops.spark.session import build_session
    from lakeops.zonemap.levels import parse_day, parse_hour

    arg, parse = ("hour", parse_hour) if level == "hourly" else ("day", parse_day)
    parser = argparse.ArgumentParser(description=f"consolidate the {level} zonemap of one {arg}")
    parser.add_argument("--table", required=True)
    parser.add_argument(f"--{arg}", required=True)
    parser.add_argument("--config", help="path of lakeops.yaml (default: $LAKEOPS_CONFIG)")
    args = parser.parse_args(argv)

    def body() -> dict:
        config = load_config(args.config)
        when = parse(getattr(args, arg))
        spark = build_session(config, f"lakeops zonemap {level} {args.table}")
        return run_consolidation(spark, config, args.table, level, when).as_dict()

    return run_job(body)
