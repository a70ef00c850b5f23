"""Compaction under a CDC stream, and what one compaction run costs
(`python -m benchmarks compaction [--quick] [--part PART] [--stream STREAM]`).

Parts:

* streams (stream.py): one `orders` CDC stream applied every 5 simulated minutes by the CDC ingest
  job to one copy of the table per maintenance variant, side by side: never compacted, crons of
  rewrite_data_files, and lakeops' threshold trigger. One run per stream shape in STREAMS
  (10 to 20 minutes each on 2 cores);
* call (call.py): one rewrite call on identical table states, by its options (about 5 minutes);
* fold_size (fold_size.py): folding one partition, by the partition's size (about 2 minutes);
* launch (launch.py): a compaction run as a spark-submit against the same call in a running
  session (about 6 minutes).

With no flags every part runs at full size. Results: benchmarks/results/compaction_<stream>.md,
.json and .png, and compaction_call, compaction_fold_size, compaction_launch (.md and .json).
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benchmarks.common import PROJECT_ROOT, configure_logging, output_name, write_results
from benchmarks.compaction import call, fold_size, launch
from benchmarks.compaction.report import plot, report
from benchmarks.compaction.stream import Stream, run

NAME = "compaction"
EVERY_WAY = ("tuned:15", "tuned:20", "threshold", "threshold:1.8")
"""Two tuned crons around the trigger's spend, and the trigger at the shipped 1.5 and at 1.8."""
STREAMS = {
    "steady": Stream(("tuned:20", "tuned:25", "threshold", "threshold:1.5", "threshold:1.8"), hours=3.0, repeats=1),
    "varying": Stream(EVERY_WAY, hours=3.0, rate_profile=(0.25, 3.0, 1.0), rate_block_minutes=30),
    "busy_quiet": Stream(EVERY_WAY, hours=4.0, rate_profile=(3.0, 0.1), rate_block_minutes=60),
    "busy_idle": Stream(EVERY_WAY, hours=4.0, rate_profile=(3.0, 0.0), rate_block_minutes=60, repeats=1),
}
"""The stream shapes: 26 changes a minute throughout (the steady run carries the shipped trigger
twice, under two names, to show the noise between identical variants); every 30 minutes through
6, 78 and 26 a minute; an hour at 78 and an hour at 3, in turn; an hour at 78 and an hour at none."""
QUICK_STREAM = Stream(("none", "tuned:10", "threshold"), hours=0.5, history_days=10, history_orders_per_day=1000,
                      repeats=1)


@dataclass(frozen=True)
class Part:
    results: str
    run: Callable[[Any], dict[str, Any]]
    report: Callable[[dict[str, Any]], str]
    full: Any
    quick: Any


PARTS = {
    "call": Part("compaction_call", call.run, call.report, call.FULL, call.QUICK),
    "fold_size": Part("compaction_fold_size", fold_size.run, fold_size.report, fold_size.FULL, fold_size.QUICK),
    "launch": Part("compaction_launch", launch.run, launch.report, launch.FULL, launch.QUICK),
}
"""Every part but the streams: its results name, run and report, and its full and quick sizes."""


def run_stream(stream: Stream, name: str) -> None:
    result = run(stream, name)
    write_results(name, report(result), result)
    plot(result, name)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m benchmarks {NAME}", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="one 30-minute stream on a small table and each part once: checks that it runs")
    parser.add_argument("--part", choices=["streams", *PARTS], action="append", help="run only this part (repeatable)")
    parser.add_argument("--stream", choices=list(STREAMS), action="append",
                        help="with the streams part, run only this stream shape (repeatable)")
    args = parser.parse_args(argv)
    configure_logging(logging.WARNING)
    parts = args.part or ["streams", *PARTS]
    if "streams" in parts:
        if args.quick:
            run_stream(QUICK_STREAM, output_name(f"{NAME}_stream", True))
        else:
            for shape in args.stream or STREAMS:
                run_stream(STREAMS[shape], f"{NAME}_{shape}")
    for part in (PARTS[p] for p in PARTS if p in parts):
        name = output_name(part.results, args.quick)
        result = part.run(part.quick if args.quick else part.full)
        result["args"]["name"] = name
        write_results(name, part.report(result), result)
    print(f"results in {(PROJECT_ROOT / 'benchmarks' / 'results').relative_to(PROJECT_ROOT)}/")
    return 0
