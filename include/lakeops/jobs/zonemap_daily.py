"""spark-submit entry point: consolidate the daily zonemap of one day, reconciled with the table's live files.

    spark-submit lakeops/jobs/zonemap_daily.py --table events --day 2026-11-21
"""

from __future__ import annotations

import sys

from lakeops.spark.zonemap_levels import job_main


def main(argv: list[str]) -> int:
    return job_main(argv, "daily")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
