"""spark-submit entry point: the streaming ingest query of a table, from its checkpoint, exactly once.

    spark-submit lakeops/jobs/stream_events.py --table events --mode available-now
    spark-submit lakeops/jobs/stream_events.py --table events --mode supervised [--run-seconds 3600] [--trigger-seconds 15]

available-now commits everything landed since the checkpoint and exits; supervised runs the query
with a processing-time trigger for run-seconds, then stops it between micro-batches.
"""

from __future__ import annotations

import argparse
import sys

from lakeops.config import load_config
from lakeops.ingest.stream import MODES, plan_stream
from lakeops.spark.job import run_job
from lakeops.spark.session import build_session
from lakeops.spark.stream_events import run_stream


def _optional_int(value: str) -> int | None:
    """An Airflow template renders an unset param as "" or "None": both mean the config's value."""
    return None if value in ("", "None") else int(value)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--table", required=True)
    parser.add_argument("--mode", required=True, choices=MODES)
    parser.add_argument("--run-seconds", type=_optional_int, default=None)
    parser.add_argument("--trigger-seconds", type=_optional_int, default=None)
    parser.add_argument("--config", help="path of lakeops.yaml (default: $LAKEOPS_CONFIG, else [lakeops] config_file)")
    args = parser.parse_args(argv)

    def body() -> dict:
        config = load_config(args.config)
        plan = plan_stream(config, args.table, args.mode, args.run_seconds, args.trigger_seconds)
        spark = build_session(config, f"lakeops stream {args.table}")
        return run_stream(spark, config, plan).as_dict()

    return run_job(body)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
