"""spark-submit entry point: consolidate the hourly zonemap of one hour, reconciled with the table's live files.

    spark-submit spark_jobs/zonemap_hourly.py --table events --hour 2026-11-21T10:00:00+00:00
"""

from __future__ import annotations

import sys

from lakeops.spark.zonemap_levels import job_main

if __name__ == "__main__":
    sys.exit(job_main(sys.argv[1:], "hourly"))
