"""spark-submit entry point: apply the Debezium changes landed in one data interval to a CDC table
(users, orders) with MERGE INTO, merge-on-read, exactly once.

    spark-submit spark_jobs/ingest_cdc.py --table users --start 2026-11-21T10:00:00+00:00 --end 2026-11-21T10:05:00+00:00
"""

from __future__ import annotations

import argparse
import sys

from lakeops.config import load_config
from lakeops.ingest.plan import parse_moment, plan_ingest
from lakeops.spark.ingest_cdc import run_cdc_ingest
from lakeops.spark.job import run_job
from lakeops.spark.session import build_session


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--table", required=True)
    parser.add_argument("--start", required=True)
    parser.add_argument("--end", required=True)
    parser.add_argument("--config", help="path of lakeops.yaml (default: $LAKEOPS_CONFIG)")
    args = parser.parse_args(argv)

    def body() -> dict:
        config = load_config(args.config)
        plan = plan_ingest(config, args.table, parse_moment(args.start), parse_moment(args.end))
        spark = build_session(config, f"lakeops cdc {args.table}")
        return run_cdc_ingest(spark, config, args.table, plan).as_dict()

    return run_job(body)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
