"""The shared body of the spark-submit entry points that work on one data interval of one table
(ingest of events or CDC changes, a staged writer): parse --table/--start/--end/--config, plan
the interval, start Spark, run the job's runner."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lakeops.config import load_config
from lakeops.ingest.plan import parse_moment, plan_ingest
from lakeops.spark.job import run_job
from lakeops.spark.session import build_session

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from lakeops.config import LakeopsConfig
    from lakeops.ingest.plan import IngestPlan

Runner = Callable[["SparkSession", "LakeopsConfig", str, "IngestPlan"], Any]


def interval_parser(description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--table", required=True)
    parser.add_argument("--start", required=True)
    parser.add_argument("--end", required=True)
    parser.add_argument("--config", help="path of lakeops.yaml (default: $LAKEOPS_CONFIG)")
    return parser


def run_interval_job(args: argparse.Namespace, app_name: str, runner: Runner) -> int:
    """Plan args' interval, start a session named app_name and return run_job's exit code for
    runner's result (an object with as_dict())."""

    def body() -> dict:
        config = load_config(args.config)
        plan = plan_ingest(config, args.table, parse_moment(args.start), parse_moment(args.end))
        spark = build_session(config, app_name)
        return runner(spark, config, args.table, plan).as_dict()

    return run_job(body)
