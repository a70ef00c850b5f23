"""spark-submit entry point: expire snapshots, remove orphan files and collect zonemap garbage of one
table under its retention policy (lakeops.yaml, tables.<table>.retention).

A thin file over lakeops.jobs.expire_snapshots, the module the package ships (Airflow submits that one):
this file is for submitting by hand from a checkout.

    spark-submit spark_jobs/expire_snapshots.py --table events --as-of 2026-11-22T00:00:00+00:00 [--dry-run true]
"""

from __future__ import annotations

import sys

from lakeops.jobs.expire_snapshots import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
