"""spark-submit entry point: ingest the events landed in one data interval into Iceberg, exactly once.

A thin file over lakeops.jobs.ingest_events, the module the package ships (Airflow submits that one):
this file is for submitting by hand from a checkout.

    spark-submit spark_jobs/ingest_events.py --table events --start 2026-11-21T10:00:00+00:00 --end 2026-11-21T10:05:00+00:00
"""

from __future__ import annotations

import sys

from lakeops.jobs.ingest_events import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
