"""`lakeops etl run MODEL [--full] [--from D --to D]`: one run of an ETL model, as its DAG runs it
(spark-submit incremental_etl): incremental from the watermarks, a full recompute, or a backfill of a date
range (partition-scoped overwrite, watermarks unmoved). An incremental run whose sources are all at their
watermarks is answered from the catalog's metadata, without starting Spark, as the DAG's has_work task does."""

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
        if r["status"] == "noop":
            started = "" if d.get("spark_job", True) else "; no Spark job started"
            lines.append(f"  nothing to do ({r['reason']}){started}")
            continue
        lines.append(f"  {r['mode']} run: {r['status']} ({r['reason']}); {r['keys']} keys/rows recomputed, "
                     f"snapshot {r['snapshot_id']}")
    return "\n".join(lines)


def _nothing_to_do(ctx: Context, model: str) -> str | None:
    """Why an incremental run of the model has nothing to do (every source at its watermark), planned from the
    catalog's metadata; None when it has work. The job plans again when it starts."""
    from lakeops.etl.inputs import plan_from_catalog

    plan = plan_from_catalog(ctx.catalog, ctx.config, model)
    return plan.reason if plan.mode == "noop" else None


def run(ctx: Context, model: str, full: bool, first: str | None, last: str | None) -> int:
    name = ctx.config.model(model).name
    args = job_args(name, full, first, last)
    document: dict[str, Any] = {"command": "etl run", "model": name}
    reason = None if full or first or last else _nothing_to_do(ctx, name)
    if reason is not None:
        document["spark_job"] = False
        document["result"] = {"models": [{"model": name, "mode": "noop", "status": "noop", "reason": reason,
                                          "snapshot_id": None, "keys": 0}]}
    else:
        document["spark_job"] = True
        document["result"] = ctx.run_job("incremental_etl", args)
    ctx.console.result(document, render(document))
    return EXIT_OK


def render_status(d: dict[str, Any], now_ms: int) -> str:
    from lakeops.etl.status import status_lines, when_text

    lines = []
    for m in d["models"]:
        committed = f"last commit {when_text(m['committed_ms'], now_ms)}" if m["committed_ms"] else (
            "no commit yet" if m["exists"] else "not created yet")
        lines.append(f"model {m['model']} -> {m['table']}: {committed}")
        lines.extend(f"  {line}" for line in status_lines(m, now_ms))
    return "\n".join(lines)


def status(ctx: Context, model: str | None) -> int:
    import time

    names = [ctx.config.model(model).name] if model else list(ctx.config.models)
    if not names:
        raise CliError(f"no models in {ctx.config_path}; declare them under models: (docs/incremental-etl.md)")
    from lakeops.etl.status import model_status

    models = [model_status(ctx.catalog, ctx.config, name) for name in names]
    document: dict[str, Any] = {"command": "etl status", "models": models}
    ctx.console.result(document, render_status(document, int(time.time() * 1000)))
    return EXIT_OK
