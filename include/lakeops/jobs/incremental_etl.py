"""spark-submit entry point: bring ETL models (the config's `models`) up to date with their sources' new
snapshots, exactly once; or backfill dates; or recompute in full.

    spark-submit lakeops/jobs/incremental_etl.py --model all                       # scheduled, incremental
    spark-submit lakeops/jobs/incremental_etl.py --model user_activity_hourly --from-date 2026-11-20 --to-date 2026-11-21
"""

from __future__ import annotations

import argparse
import sys

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.etl.inputs import plan_from_catalog
from lakeops.etl.plan import choose_backfill_dates
from lakeops.spark.etl import run_etl
from lakeops.spark.job import run_job
from lakeops.spark.session import build_session


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="all", help="all, or the name of one model under the config's models")
    parser.add_argument("--from-date", default="")
    parser.add_argument("--to-date", default="")
    parser.add_argument("--full-recompute", default="false")
    parser.add_argument("--run-type", default="")
    parser.add_argument("--interval-start", default="")
    parser.add_argument("--config", help="path of lakeops.yaml (default: $LAKEOPS_CONFIG, else [lakeops] config_file)")
    args = parser.parse_args(argv)

    def body() -> dict:
        full = args.full_recompute.strip().lower() in ("true", "1", "yes")
        dates = choose_backfill_dates(args.run_type, args.interval_start or None, args.from_date or None, args.to_date or None)
        config = load_config(args.config)
        models = list(config.models) if args.model == "all" else [config.model(args.model).name]
        catalog = load_catalog(config.catalog)
        spark = build_session(config, f"lakeops etl {args.model}")
        results = []
        for name in models:
            plan = plan_from_catalog(catalog, config, name, full=full, backfill_dates=dates)
            results.append(run_etl(spark, catalog, config, plan).as_dict())
        return {"models": results}

    return run_job(body)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
