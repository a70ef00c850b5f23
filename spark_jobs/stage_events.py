"""spark-submit entry point: one staged writer of an events interval. It writes its share of the
landed files as data files into the table's staging area and publishes a manifest; it commits
nothing (the committer does, once for all writers).

    spark-submit spark_jobs/stage_events.py --table events --start 2026-11-21T10:00:00+00:00 --end 2026-11-21T10:05:00+00:00 --writer 0 --writers 4
"""

from __future__ import annotations

import argparse
import sys

from lakeops.config import load_config
from lakeops.ingest.plan import parse_moment, plan_ingest
from lakeops.spark.job import run_job
from lakeops.spark.session import build_session
from lakeops.spark.stage_events import run_stage


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--table", required=True)
    parser.add_argument("--start", required=True)
    parser.add_argument("--end", required=True)
    parser.add_argument("--writer", required=True, type=int, help="this writer's index, 0 .. writers - 1")
    parser.add_argument("--writers", required=True, type=int)
    parser.add_argument("--config", help="path of lakeops.yaml (default: $LAKEOPS_CONFIG)")
    args = parser.parse_args(argv)

    def body() -> dict:
        config = load_config(args.config)
        plan = plan_ingest(config, args.table, parse_moment(args.start), parse_moment(args.end))
        spark = build_session(config, f"lakeops stage {args.table} writer {args.writer}")
        return run_stage(spark, config, args.table, plan, args.writer, args.writers).as_dict()

    return run_job(body)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
