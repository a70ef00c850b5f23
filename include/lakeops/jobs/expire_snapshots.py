"""spark-submit entry point: expire snapshots, remove orphan files and collect zonemap garbage of one
table under its retention policy (lakeops.yaml, tables.<table>.retention).

    spark-submit lakeops/jobs/expire_snapshots.py --table events --as-of 2026-11-22T00:00:00+00:00 [--dry-run true]
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import datetime

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.exceptions import ConfigError
from lakeops.expiry.plan import resolve_request
from lakeops.spark.expire import run_expiry
from lakeops.spark.job import run_job
from lakeops.spark.session import build_session
from lakeops.tables.effective import load_effective


def _ms(value: str, what: str) -> int | None:
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as e:
        raise ConfigError(f"{what}: {value!r} is not an ISO-8601 time; pass e.g. 2026-11-21T10:00:00+00:00") from e
    if moment.tzinfo is None:
        raise ConfigError(f"{what}: {value!r} has no time zone; add one, e.g. +00:00")
    return int(moment.timestamp() * 1000)


def _int(value: str, what: str) -> int | None:
    if not value:
        return None
    try:
        return int(value)
    except ValueError as e:
        raise ConfigError(f"{what}: {value!r} is not a whole number") from e


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--table", required=True)
    parser.add_argument("--as-of", default="", help="the run's date (data interval end); the policy's ages count back from it")
    parser.add_argument("--older-than", default="", help="expire snapshots older than this time instead of the policy's age")
    parser.add_argument("--retain-last", default="", help="keep at least this many snapshots per branch instead of the policy's")
    parser.add_argument("--orphan-min-age-hours", default="", help="orphan window instead of the policy's (24 or more)")
    parser.add_argument("--dry-run", choices=("true", "false"), default="false")
    parser.add_argument("--config", help="path of lakeops.yaml (default: $LAKEOPS_CONFIG, else [lakeops] config_file)")
    args = parser.parse_args(argv)

    def body() -> dict:
        config = load_config(args.config)
        now_ms = int(time.time() * 1000)
        spec, _ = load_effective(config, load_catalog(config.catalog), args.table)
        request = resolve_request(spec.retention, now_ms, as_of_ms=_ms(args.as_of, "as_of"),
                                  older_than_ms=_ms(args.older_than, "older_than"),
                                  retain_last=_int(args.retain_last, "retain_last"),
                                  orphan_min_age_hours=_int(args.orphan_min_age_hours, "orphan_min_age_hours"),
                                  dry_run=args.dry_run == "true")
        spark = build_session(config, f"lakeops expire {args.table}")
        return run_expiry(spark, config, args.table, request, now_ms).as_dict()

    return run_job(body)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
