"""spark-submit entry point: run a compaction plan (from lakeops.compaction.plan) on one table.

    spark-submit lakeops/jobs/compact_table.py --table orders --plan '{"table": ..., "actions": [...]}' --run-id manual-1
"""

from __future__ import annotations

import argparse
import sys

from lakeops.compaction.serde import plan_from_json
from lakeops.config import load_config
from lakeops.exceptions import ConfigError
from lakeops.spark.compact_table import run_compaction
from lakeops.spark.job import run_job
from lakeops.spark.session import build_session


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--table", required=True)
    parser.add_argument("--plan", required=True, help="the plan as JSON (CompactionPlan.as_dict())")
    parser.add_argument("--run-id", required=True)
    parser.add_argument("--dry-run", action=argparse.BooleanOptionalAction, default=False)
    parser.add_argument("--config", help="path of lakeops.yaml (default: $LAKEOPS_CONFIG, else [lakeops] config_file)")
    args = parser.parse_args(argv)

    def body() -> dict:
        config = load_config(args.config)
        spec = config.table(args.table)
        plan = plan_from_json(args.plan)
        if config.identifier(plan.table) != spec.name:
            raise ConfigError(f"plan is for table {plan.table!r}, not {args.table!r}; plan the table you compact")
        spark = build_session(config, f"lakeops compact {spec.name}")
        return run_compaction(spark, config, spec.name, plan, args.run_id, dry_run=args.dry_run)

    return run_job(body)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
