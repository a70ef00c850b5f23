"""Run the staged committer of one interval by hand (no Spark needed):

    python -m lakeops.staging --table events --start 2026-11-21T10:00:00+00:00 --end 2026-11-21T10:05:00+00:00 --writers 4
"""

from __future__ import annotations

import argparse
import sys

from lakeops.config import load_config
from lakeops.ingest.plan import parse_moment, plan_ingest
from lakeops.spark.job import run_job
from lakeops.staging.commit import commit_staged


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m lakeops.staging", description=__doc__)
    parser.add_argument("--table", required=True)
    parser.add_argument("--start", required=True)
    parser.add_argument("--end", required=True)
    parser.add_argument("--writers", required=True, type=int, help="writer tasks that staged the batch")
    parser.add_argument("--config", help="path of lakeops.yaml (default: $LAKEOPS_CONFIG)")
    args = parser.parse_args(argv)

    def body() -> dict:
        config = load_config(args.config)
        plan = plan_ingest(config, args.table, parse_moment(args.start), parse_moment(args.end))
        return commit_staged(config, args.table, plan, args.writers).as_dict()

    return run_job(body)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
