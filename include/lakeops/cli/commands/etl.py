"""`lakeops etl run MODEL [--full] [--from D --to D]`: one run of an ETL model, as its DAG runs it
(spark-submit incremental_etl): incremental from the watermarks, a full recompute, or a backfill of a date
range (partition-scoped overwrite, watermarks unmoved)."""

from __future__ import annotations

from typing import Any

from lakeops.cli.context import Context
from lakeops.cli.values import EXIT_OK, CliError


def job_args(model: str, full: bool, first: str | None, last: str | None) -> list[str]:
    """The incremental_etl job's arguments for one model; dates validated here (YYYY-MM-DD, both or neither)."""
    from lakeops.etl.plan import choose_backfill_dates

    if full and (first or last):
        raise CliError("--full recomputes the whole table and --from/--to a date range; give one of them")
    choose_backfill_dates("manual", None, first, last)
    return ["--model", model, "--from-date", first or "", "--to-date", last or "", "--full-recompute", str(full).lower()]


def render(d: dict[str, Any]) -> str:
    lines = [f"model {d['model']}:"]
    for r in (d.get("result") or {}).get("models", []):
        lines.append(f"  {r['mode']} run: {r['status']} ({r['reason']}); {r['keys']} keys/rows recomputed, "
                     f"snapshot {r['snapshot_id']}")
    return "\n".join(lines)


def run(ctx: Context, model: str, full: bool, first: str | None, last: str | None) -> int:
    name = ctx.config.model(model).name
    document: dict[str, Any] = {"command": "etl run", "model": name}
    document["result"] = ctx.run_job("incremental_etl", job_args(name, full, first, last))
    ctx.console.result(document, render(document))
    return EXIT_OK
