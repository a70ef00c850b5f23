"""`lakeops ingest TABLE --start T --end T`: one batch of the interval, as the table's ingest DAG runs it:
events (direct, or staged writers and one commit, as ingest.commit_mode says) or CDC changes (ingest.format),
exactly once (the batch id comes from the interval, so a rerun commits nothing twice)."""

from __future__ import annotations

from typing import Any

from lakeops.cli.context import Context
from lakeops.cli.render.ingest import render_ingest
from lakeops.cli.values import EXIT_OK, CliError, ingest_jobs, parse_interval


def run(ctx: Context, table: str, start: str, end: str) -> int:
    from lakeops.staging.tasks import commit_for, plan_for

    begin, finish = parse_interval(start, end)
    spec = ctx.table(table)
    if not spec.ingested:
        raise CliError(f"table {spec.name} has no source, so lakeops does not ingest it; set source: <landing folder under "
                       f"landing_dir> (or ingest.kafka: {{topic, bootstrap_servers}}) in its entry in {ctx.config_path}")
    planned = plan_for(spec.name, begin.isoformat(), finish.isoformat())
    jobs = ingest_jobs(spec.ingest.format, planned)
    document: dict[str, Any] = {"command": "ingest", "table": spec.name, "format": spec.ingest.format,
                                "mode": planned["mode"], "start": planned["start"], "end": planned["end"],
                                "source": f"{ctx.config.landing_root}/{spec.source_dir}",
                                "quarantine_table": spec.quarantine_name}
    results = [ctx.run_job(job, args) for job, args in jobs]
    if planned["mode"] == "staged":
        document["writers"] = results
        document["result"] = commit_for(planned)
    else:
        document["result"] = results[0]
    ctx.console.result(document, render_ingest(document))
    return EXIT_OK
