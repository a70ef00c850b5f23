"""spark-submit entry point: bring ETL models up to date with their sources' new snapshots, exactly once.

A thin file over lakeops.jobs.incremental_etl, the module the package ships (Airflow submits that one):
this file is for submitting by hand from a checkout.

    spark-submit spark_jobs/incremental_etl.py --model all                       # scheduled, incremental
    spark-submit spark_jobs/incremental_etl.py --model user_activity_hourly --from-date 2026-11-20 --to-date 2026-11-21
"""

from __future__ import annotations

import sys

from lakeops.jobs.incremental_etl import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
