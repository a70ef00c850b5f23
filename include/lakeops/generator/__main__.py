"""Land generated input: python -m lakeops.generator --start 2026-11-21T10:00:00Z --minutes 60,
or events at a set rate for as long as asked: python -m lakeops.generator --rate 43000 --rows-per-file 43000 --seconds 600"""

from __future__ import annotations

import argparse
import logging
from datetime import datetime

from lakeops.config import load_config
from lakeops.generator import generate_cdc, generate_events
from lakeops.generator.paced import land_paced, pace

log = logging.getLogger("lakeops.generator")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--start", type=datetime.fromisoformat,
                        help="first arrival minute, ISO-8601 with zone (required unless --rate)")
    parser.add_argument("--minutes", type=int, default=60)
    parser.add_argument("--events-per-minute", type=int, default=500)
    parser.add_argument("--cdc-changes-per-minute", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--history-days", type=int, default=0,
                        help="land an initial snapshot (op r) of this many past days of orders")
    parser.add_argument("--history-orders-per-day", type=int, default=1000)
    parser.add_argument("--order-age-skew", type=float, default=0.0,
                        help="Zipf exponent on the age in days of the order a change hits "
                             "(0: uniform, 2: most changes hit today's orders)")
    parser.add_argument("--landing-dir", help="default: landing_dir of the config file")
    parser.add_argument("--rate", type=float, help="paced mode: land events now, at this many rows per second")
    parser.add_argument("--rows-per-file", type=int, default=10_000, help="paced mode: rows per landed file")
    parser.add_argument("--seconds", type=float, default=60, help="paced mode: how long to land at --rate")
    parser.add_argument("--backlog", action="store_true", help="paced mode: land all of it at once, as a backlog")
    parser.add_argument("--run-id", default="paced", help="paced mode: file names and event ids start with it")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    root = args.landing_dir or load_config().landing_root
    if args.rate is not None:
        run = land_paced(root, pace(args.rate, args.rows_per_file, args.seconds, args.backlog), args.run_id)
        log.info("landed %d event files under %s: %d rows (%d bad) in %.1f s, %.0f rows/s, at most %.1f s behind "
                 "schedule", run.files, root, run.rows, run.bad, run.seconds, run.rows_per_second, run.max_behind_s)
        return
    if args.start is None:
        parser.error("--start is required (or --rate for paced mode)")
    events = generate_events(root, args.start, args.minutes, args.events_per_minute, seed=args.seed)
    cdc = generate_cdc(root, args.start, args.minutes, args.cdc_changes_per_minute, seed=args.seed + 1,
                       history_days=args.history_days, history_orders_per_day=args.history_orders_per_day,
                       order_age_skew=args.order_age_skew)
    log.info("landed %d event files under %s: %d good events (%d late), %d bad lines %s",
             events.files, root, events.good, events.late, events.bad_total, events.bad)
    log.info("landed %d CDC files: %s (initial snapshot rows: %s)", cdc.files, cdc.changes, cdc.snapshot_rows)


if __name__ == "__main__":
    main()
