"""spark-submit entry point: consolidate the hourly zonemap of one hour, reconciled with the table's live files.

A thin file over lakeops.jobs.zonemap_hourly, the module the package ships (Airflow submits that one):
this file is for submitting by hand from a checkout.

    spark-submit spark_jobs/zonemap_hourly.py --table events --hour 2026-11-21T10:00:00+00:00
"""

from __future__ import annotations

import sys

from lakeops.jobs.zonemap_hourly import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
