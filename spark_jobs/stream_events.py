"""spark-submit entry point: the streaming ingest query of a table, from its checkpoint, exactly once.

A thin file over lakeops.jobs.stream_events, the module the package ships (Airflow submits that one):
this file is for submitting by hand from a checkout.

    spark-submit spark_jobs/stream_events.py --table events --mode available-now
    spark-submit spark_jobs/stream_events.py --table events --mode supervised [--run-seconds 3600] [--trigger-seconds 15]
"""

from __future__ import annotations

import sys

from lakeops.jobs.stream_events import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
