"""`lakeops expire TABLE [--dry-run]`: spark-submit expire_snapshots as the expire_snapshots DAG does, under the
table's effective retention policy (or the overrides given); the request is checked here first, so a bad
value costs no Spark start."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from lakeops.cli.context import Context
from lakeops.cli.render.maintenance import render_expiry, snapshot_rows
from lakeops.cli.render.text import moment
from lakeops.cli.values import EXIT_OK, parse_retain_last, parse_time

if TYPE_CHECKING:
    from pyiceberg.table import Table


def _snapshots(loaded: Table) -> list[dict[str, Any]]:
    current = loaded.metadata.current_snapshot_id
    return [{"snapshot_id": s.snapshot_id, "parent_id": s.parent_snapshot_id, "committed_at": moment(s.timestamp_ms),
             "operation": s.summary.operation.value if s.summary else None, "current": s.snapshot_id == current}
            for s in sorted(loaded.snapshots(), key=lambda s: (s.timestamp_ms, s.snapshot_id))]


def run(ctx: Context, table: str, dry_run: bool, older_than: str | None, retain_last: str | None,
        orphan_min_age_hours: int | None) -> int:
    from lakeops.expiry.plan import resolve_request

    cutoff = parse_time(older_than, "--older-than") if older_than else None
    keep = parse_retain_last(retain_last)
    spec, loaded = ctx.load(table)
    resolve_request(spec.retention, int(time.time() * 1000), older_than_ms=int(cutoff.timestamp() * 1000) if cutoff else None,
                    retain_last=keep, orphan_min_age_hours=orphan_min_age_hours, dry_run=dry_run)
    snapshots = _snapshots(loaded)
    args = ["--table", spec.name, "--older-than", cutoff.isoformat() if cutoff else "",
            "--retain-last", "" if keep is None else str(keep),
            "--orphan-min-age-hours", "" if orphan_min_age_hours is None else str(orphan_min_age_hours),
            "--dry-run", "true" if dry_run else "false"]
    result = ctx.run_job("expire_snapshots", args)
    kept: dict[int, str] = {}
    for k in [*result.get("refs_kept", []), *result.get("kept_by_guards", [])]:
        kept[k["snapshot_id"]] = "; ".join(filter(None, [kept.get(k["snapshot_id"]), k["reason"]]))
    document = {"command": "expire", "table": spec.name, "dry_run": dry_run,
                "snapshots": snapshot_rows(snapshots, result.get("expire_ids", []), kept), "result": result}
    ctx.console.result(document, render_expiry(document))
    return EXIT_OK
