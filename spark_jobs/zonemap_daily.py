"""spark-submit entry point: consolidate the daily zonemap of one day, reconciled with the table's live files.

A thin file over lakeops.jobs.zonemap_daily, the module the package ships (Airflow submits that one):
this file is for submitting by hand from a checkout.

    spark-submit spark_jobs/zonemap_daily.py --table events --day 2026-11-21
"""

from __future__ import annotations

import sys

from lakeops.jobs.zonemap_daily import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
