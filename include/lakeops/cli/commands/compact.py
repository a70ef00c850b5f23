"""`lakeops compact TABLE [--dry-run]`: plan as the compaction DAGs' plan task does (metadata only), then
spark-submit compact_table with that plan, as their compact task does. A dry run, or a plan with nothing
to do, starts no Spark."""

from __future__ import annotations

import time

from lakeops.cli.context import Context
from lakeops.cli.render.maintenance import render_compaction
from lakeops.cli.values import EXIT_FAILED, EXIT_OK


def run(ctx: Context, table: str, dry_run: bool) -> int:
    from lakeops.compaction.tasks import compact_job_args, plan_for

    spec, _ = ctx.load(table)
    plan = plan_for(spec.name, ctx.config)
    run_id = f"cli-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}"
    document = {"command": "compact", "table": spec.name, "dry_run": dry_run, "run_id": run_id, "plan": plan, "result": None}
    if not plan["actions"]:
        document["status"] = "nothing_to_do"
    elif dry_run:
        document["status"] = "dry_run"
    else:
        result = ctx.run_job("compact_table", compact_job_args(spec.name, plan, run_id, False))
        document.update(status=result.get("status"), result=result)
    ctx.console.result(document, render_compaction(document))
    return EXIT_FAILED if document["status"] == "failed" else EXIT_OK
