"""The command line's grammar: commands, their options, and the global --config and --json, accepted before
or after the command. Building it imports nothing heavy, so `lakeops --help` is instant."""

from __future__ import annotations

import argparse

TABLE_HELP = "the table's identifier, namespace.table (several namespace levels allowed, e.g. lake.sales.orders)"
TIME_EXAMPLE = "2026-11-21T10:00:00Z"

DESCRIPTION = """Look at and maintain the Iceberg tables lakeops maintains, without Airflow: the same library code and
Spark jobs the DAGs run. Exit status: 0 done, 1 a job or run failed, 2 bad input (the message names the value and
the fix)."""


def _globals(parser: argparse.ArgumentParser, defaults: bool) -> None:
    """--config and --json; on the commands their defaults are suppressed, so a value given before the command
    is not overwritten by the command's parser."""
    keep = argparse.SUPPRESS
    parser.add_argument("--config", metavar="PATH", default=None if defaults else keep,
                        help="the lakeops config file (default: $LAKEOPS_CONFIG, else the packaged include/lakeops.yaml)")
    parser.add_argument("--json", action="store_true", default=False if defaults else keep,
                        help="print one JSON document on stdout (progress lines go to stderr)")


def _spark(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--master", metavar="URL", default=None,
                        help="Spark master for the job (default: $LAKEOPS_SPARK_MASTER, else the config's Spark connection "
                             "from $AIRFLOW_CONN_<CONN_ID>, else local[2])")


def build_parser() -> argparse.ArgumentParser:
    from lakeops import __version__

    parser = argparse.ArgumentParser(prog="lakeops", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"lakeops {__version__}")
    _globals(parser, defaults=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(name: str, help_text: str, sub: argparse._SubParsersAction | None = None) -> argparse.ArgumentParser:
        found = (sub or commands).add_parser(name, help=help_text, description=help_text)
        _globals(found, defaults=False)
        return found

    tables = command("tables", "list every maintained table (configured and discovered)")
    tables.add_argument("--explain", action="store_true",
                        help="each effective setting and where it came from (default, config defaults, table property, "
                             "config entry)")

    health = command("health", "a table's health from its metadata: files, deletes, read amplification, freshness, checks")
    health.add_argument("table", metavar="TABLE", help=TABLE_HELP)

    compact = command("compact", "plan and run a compaction of a table (spark-submit compact_table)")
    compact.add_argument("table", metavar="TABLE", help=TABLE_HELP)
    compact.add_argument("--dry-run", action="store_true", help="print the plan only; no Spark starts")
    _spark(compact)

    expire = command("expire", "expire snapshots and remove orphan files under the table's retention "
                               "(spark-submit expire_snapshots)")
    expire.add_argument("table", metavar="TABLE", help=TABLE_HELP)
    expire.add_argument("--dry-run", action="store_true", help="list what would go; delete nothing")
    expire.add_argument("--older-than", metavar="TIME",
                        help=f"expire snapshots older than this instead of the policy's age, e.g. {TIME_EXAMPLE}")
    expire.add_argument("--retain-last", metavar="N", help="snapshots kept per branch instead of retention.min_snapshots")
    expire.add_argument("--orphan-min-age-hours", metavar="H", type=int,
                        help="orphan window instead of retention.orphan_min_age_hours (24 or more)")
    _spark(expire)

    zonemap = command("zonemap", "build or consolidate a table's zonemap index")
    levels = zonemap.add_subparsers(dest="zonemap_command", metavar="ACTION", required=True)
    build = command("build", "build the index of a table that has none, from its manifests (no Spark)", levels)
    build.add_argument("table", metavar="TABLE", help=TABLE_HELP)
    consolidate = command("consolidate", "consolidate the hourly zonemap of one hour, or the daily master through one "
                                         "day (spark-submit zonemap_hourly / zonemap_daily)", levels)
    consolidate.add_argument("table", metavar="TABLE", help=TABLE_HELP)
    consolidate.add_argument("--hour", metavar="H", help=f"the hour to consolidate, e.g. {TIME_EXAMPLE}")
    consolidate.add_argument("--day", metavar="D", help="the day to consolidate through, e.g. 2026-11-21")
    _spark(consolidate)

    query = command("query", "a table's rows matching a WHERE clause, read through its zonemap index (no Spark); "
                             "--explain prints the plan only")
    query.add_argument("table", metavar="TABLE", help=TABLE_HELP)
    query.add_argument("--where", metavar="SQL", help="the condition, e.g. \"user_id = 42 AND event_time >= "
                                                     "'2026-11-21T10:00:00+00:00'\" (default: every row)")
    query.add_argument("--explain", action="store_true",
                       help="print files planned, files pruned by the index, how it planned and the time; read nothing")
    query.add_argument("--limit", metavar="N", type=int, default=20, help="rows printed (default 20)")

    ingest = command("ingest", "ingest one interval of a table's landed files, exactly once (events or CDC)")
    ingest.add_argument("table", metavar="TABLE", help=TABLE_HELP)
    ingest.add_argument("--start", metavar="TIME", required=True, help=f"interval start, e.g. {TIME_EXAMPLE}")
    ingest.add_argument("--end", metavar="TIME", required=True, help="interval end (exclusive)")
    _spark(ingest)

    etl = command("etl", "run an ETL model (the config's models), or see how far each is behind its sources")
    etl_actions = etl.add_subparsers(dest="etl_command", metavar="ACTION", required=True)
    etl_run = command("run", "bring a model up to date from its sources' changes, recompute it (--full) or backfill "
                             "dates (--from/--to) (spark-submit incremental_etl)", etl_actions)
    etl_run.add_argument("model", metavar="MODEL", help="a model's name under the config's models")
    etl_run.add_argument("--full", action="store_true", help="recompute the whole table from its sources")
    etl_run.add_argument("--from", dest="from_date", metavar="D", help="first date to backfill, e.g. 2026-11-20")
    etl_run.add_argument("--to", dest="to_date", metavar="D", help="last date to backfill (inclusive)")
    _spark(etl_run)
    etl_status = command("status", "each model's sources: the commits its watermarks have not read yet, and what its "
                                   "next run would do (metadata only, no Spark)", etl_actions)
    etl_status.add_argument("model", metavar="MODEL", nargs="?", help="one model (default: every model)")
    return parser
