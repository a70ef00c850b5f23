"""spark-submit entry point: one staged writer of an events interval. It writes its share of the
landed files as data files into the table's staging area and publishes a manifest; it commits
nothing (the committer does, once for all writers).

A thin file over lakeops.jobs.stage_events, the module the package ships (Airflow submits that one):
this file is for submitting by hand from a checkout.

    spark-submit spark_jobs/stage_events.py --table events --start 2026-11-21T10:00:00+00:00 --end 2026-11-21T10:05:00+00:00 \\
        --writer 0 --writers 4
"""

from __future__ import annotations

import sys

from lakeops.jobs.stage_events import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
