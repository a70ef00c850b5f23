"""spark-submit entry point: apply the Debezium changes landed in one data interval to a CDC table
(users, orders) with MERGE INTO, merge-on-read, exactly once.

    spark-submit lakeops/jobs/ingest_cdc.py --table users --start 2026-11-21T10:00:00+00:00 --end 2026-11-21T10:05:00+00:00
"""

from __future__ import annotations

import sys

from lakeops.spark.ingest_cdc import run_cdc_ingest
from lakeops.spark.interval_job import interval_parser, run_interval_job


def main(argv: list[str]) -> int:
    args = interval_parser(__doc__).parse_args(argv)
    return run_interval_job(args, f"lakeops cdc {args.table}", run_cdc_ingest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
