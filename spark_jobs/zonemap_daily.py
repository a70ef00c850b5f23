"""spark-submit entry point: consolidate the daily zonemap of one day, reconciled with the table's live files.

    spark-submit spark_jobs/zonemap_daily.py --table events --day 2026-11-21
"""

from __future__ import annotations

import sys

from lakeops.spark.zonemap_levels import job_main

if __name__ == "__main__":
    sys.exit(job_main(sys.argv[1:], "daily"))
