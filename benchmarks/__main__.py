"""python -m benchmarks NAME [--quick] [options]: run one benchmark (its --help lists the options)."""

from __future__ import annotations

import importlib
import sys

BENCHMARKS = {
    "ingest_and_commits": "direct vs staged commits under concurrent writers; what zonemaps cost the writes",
    "zonemaps": "selective reads: Iceberg's pruning vs zonemap-pruned reads vs the files that truly match",
    "zonemap_planning": "zonemap planning vs Iceberg's on metadata-only tables of 10,000 to 1,000,000 files; index memory",
    "health_checks": "one health check's figures and sensor poke on a table of many files, cold and cached",
    "compaction": "no maintenance vs crons vs the threshold trigger under CDC streams; what one run costs",
    "expiry": "snapshot expiry through the expire_snapshots DAG on tables with real ingest and CDC history",
    "incremental_etl": "an incremental ETL run after 1% new data vs a full recompute",
    "write_impact": "what zonemaps cost ingest throughput at commit intervals of 1 to 15 s, 1 and 4 writers",
    "ingest_throughput": "sustained streaming ingest at 43,000 rows/s: backlog and live arrival, CPU, commits, time split",
    "streaming_freshness": "streaming ingest: time from a file landing to its rows being readable",
    "many_tables": "DAG parse time, health-watch polls and the table-health index at 100 and 1,000 tables",
}


def usage() -> str:
    width = max(map(len, BENCHMARKS))
    return ("usage: python -m benchmarks NAME [--quick] [options]   (or: make bench-NAME BENCH_ARGS=--quick)\n\n"
            "benchmarks:\n" + "\n".join(f"  {name:<{width}}  {what}" for name, what in BENCHMARKS.items()) + "\n")


def main(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(usage())
        return 0
    if not argv or argv[0] not in BENCHMARKS:
        print((f"unknown benchmark {argv[0]!r}\n\n" if argv else "") + usage(), file=sys.stderr)
        return 2
    return importlib.import_module(f"benchmarks.{argv[0]}").main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
