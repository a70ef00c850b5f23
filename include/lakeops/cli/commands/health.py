"""`lakeops health TABLE`: the figures the health sensors and the table_health DAG compute, from metadata
only, with the table's effective thresholds. Nothing is recorded in the health history."""

from __future__ import annotations

from datetime import UTC, datetime

from lakeops.cli.context import Context
from lakeops.cli.render.health import health_document, render_health
from lakeops.cli.values import EXIT_OK


def run(ctx: Context, table: str) -> int:
    from lakeops.alerts.freshness import evaluate_freshness, last_commit_time
    from lakeops.health.check import evaluate_checks, resolve_limits
    from lakeops.health.thresholds import CHECKS

    spec, loaded = ctx.load(table)
    health, over = evaluate_checks(ctx.config, spec.name, dict.fromkeys(CHECKS), record=False, loaded=loaded)
    freshness = evaluate_freshness(spec.name, last_commit_time(loaded), spec.freshness_sla_minutes, datetime.now(UTC))
    limits = {check: resolve_limits(spec, check, None) for check in CHECKS}
    document = health_document(health, freshness, limits, over)
    ctx.console.result(document, render_health(document))
    return EXIT_OK
