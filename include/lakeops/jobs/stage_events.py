"""spark-submit entry point: one staged writer of an events interval. It writes its share of the
landed files as data files into the table's staging area and publishes a manifest; it commits
nothing (the committer does, once for all writers).

    spark-submit lakeops/jobs/stage_events.py --table events --start 2026-11-21T10:00:00+00:00 --end 2026-11-21T10:05:00+00:00 \\
        --writer 0 --writers 4
"""

from __future__ import annotations

import sys

from lakeops.spark.interval_job import interval_parser, run_interval_job
from lakeops.spark.stage_events import run_stage


def main(argv: list[str]) -> int:
    parser = interval_parser(__doc__)
    parser.add_argument("--writer", required=True, type=int, help="this writer's index, 0 .. writers - 1")
    parser.add_argument("--writers", required=True, type=int)
    args = parser.parse_args(argv)
    return run_interval_job(
        args, f"lakeops stage {args.table} writer {args.writer}",
        lambda spark, config, table, plan: run_stage(spark, config, table, plan, args.writer, args.writers))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
