"""spark-submit entry point: run a compaction plan (from lakeops.compaction.plan) on one table.

A thin file over lakeops.jobs.compact_table, the module the package ships (Airflow submits that one):
this file is for submitting by hand from a checkout.

    spark-submit spark_jobs/compact_table.py --table orders --plan '{"table": ..., "actions": [...]}' --run-id manual-1
"""

from __future__ import annotations

import sys

from lakeops.jobs.compact_table import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
