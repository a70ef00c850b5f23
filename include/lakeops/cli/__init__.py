"""The `lakeops` console script: look at and maintain tables without Airflow (docs/cli.md).

Thin: parse the arguments, run the command module, turn errors into exit statuses: 0 done, 1 a job or run
failed, 2 bad input or configuration (the message names the value and the fix)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from lakeops.cli.console import Console
from lakeops.cli.values import EXIT_FAILED, EXIT_USAGE, CliError

__all__ = ["main"]


def _config_path(option: str | None) -> str:
    from lakeops.config.root import default_config_path

    return str((default_config_path() if option is None else Path(option)).resolve())


def _dispatch(args: argparse.Namespace, console: Console) -> int:
    from lakeops.cli.context import Context

    ctx = Context(console, _config_path(args.config), getattr(args, "master", None))
    # Library code the DAG tasks call reads the config from $LAKEOPS_CONFIG; so do the Spark jobs.
    os.environ["LAKEOPS_CONFIG"] = ctx.config_path
    if args.command == "tables":
        from lakeops.cli.commands import tables

        return tables.run(ctx, args.explain)
    if args.command == "health":
        from lakeops.cli.commands import health

        return health.run(ctx, args.table)
    if args.command == "compact":
        from lakeops.cli.commands import compact

        return compact.run(ctx, args.table, args.dry_run)
    if args.command == "expire":
        from lakeops.cli.commands import expire

        return expire.run(ctx, args.table, args.dry_run, args.older_than, args.retain_last, args.orphan_min_age_hours)
    if args.command == "zonemap":
        from lakeops.cli.commands import zonemap

        if args.zonemap_command == "build":
            return zonemap.build(ctx, args.table)
        return zonemap.consolidate(ctx, args.table, args.hour, args.day)
    if args.command == "query":
        from lakeops.cli.commands import query

        return query.run(ctx, args.table, args.where, args.explain, args.limit)
    if args.command == "ingest":
        from lakeops.cli.commands import ingest

        return ingest.run(ctx, args.table, args.start, args.end)
    if args.command == "etl":
        from lakeops.cli.commands import etl

        if args.etl_command == "status":
            return etl.status(ctx, args.model)
        return etl.run(ctx, args.model, args.full, args.from_date, args.to_date)
    raise AssertionError(f"unhandled command {args.command!r}")


def main(argv: Sequence[str] | None = None) -> int:
    from lakeops.cli.parser import build_parser

    args = build_parser().parse_args(argv)  # bad usage: argparse prints it and exits 2
    console = Console(json=args.json)
    from lakeops.cli.jobs import JobFailed
    from lakeops.exceptions import ConfigError, LakeopsError, SetupError

    try:
        return _dispatch(args, console)
    except JobFailed as e:
        console.error(str(e), e.exit_code)
        return e.exit_code
    except (CliError, ConfigError, SetupError) as e:
        console.error(str(e), EXIT_USAGE)
        return EXIT_USAGE
    except LakeopsError as e:  # a run stopped to protect the table, or could not commit: its message says why
        console.error(str(e), EXIT_FAILED)
        return EXIT_FAILED
    except KeyboardInterrupt:
        console.error("interrupted", 130)
        return 130
    except Exception as e:  # noqa: BLE001 - a failed run says what failed, not a traceback
        console.error(f"{type(e).__name__}: {e}", EXIT_FAILED)
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
