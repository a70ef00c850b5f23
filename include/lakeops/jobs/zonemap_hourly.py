"""spark-submit entry point: consolidate the hourly zonemap of one hour, reconciled with the table's live files.

    spark-submit lakeops/jobs/zonemap_hourly.py --table events --hour 2026-11-21T10:00:00+00:00
"""

from __future__ import annotations

import sys

from lakeops.spark.zonemap_levels import job_main


def main(argv: list[str]) -> int:
    return job_main(argv, "hourly")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
