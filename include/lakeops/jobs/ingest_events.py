"""spark-submit entry point: ingest the events landed in one data interval into Iceberg, exactly once.

    spark-submit lakeops/jobs/ingest_events.py --table events --start 2026-11-21T10:00:00+00:00 --end 2026-11-21T10:05:00+00:00
"""

from __future__ import annotations

import sys

from lakeops.spark.ingest_events import run_ingest
from lakeops.spark.interval_job import interval_parser, run_interval_job


def main(argv: list[str]) -> int:
    args = interval_parser(__doc__).parse_args(argv)
    return run_interval_job(args, f"lakeops ingest {args.table}", run_ingest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
