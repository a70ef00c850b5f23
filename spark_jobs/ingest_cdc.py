"""spark-submit entry point: apply the Debezium changes landed in one data interval to a CDC table
(users, orders) with MERGE INTO, merge-on-read, exactly once.

A thin file over lakeops.jobs.ingest_cdc, the module the package ships (Airflow submits that one):
this file is for submitting by hand from a checkout.

    spark-submit spark_jobs/ingest_cdc.py --table users --start 2026-11-21T10:00:00+00:00 --end 2026-11-21T10:05:00+00:00
"""

from __future__ import annotations

import sys

from lakeops.jobs.ingest_cdc import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
