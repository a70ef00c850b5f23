"""`lakeops query TABLE --where "..." [--explain] [--limit N]`: a table's matching rows read through its
zonemap index with pyiceberg in this process (no Spark), or with --explain only the plan: live files,
files the index pruned, how it planned (from the master plus the snapshots since, or a full listing),
how a Spark read would run, and the planning time."""

from __future__ import annotations

import time
from typing import Any

from lakeops.cli.context import Context
from lakeops.cli.render.query import render_query
from lakeops.cli.values import EXIT_OK, CliError


def run(ctx: Context, table: str, where: str | None, explain: bool, limit: int) -> int:
    from lakeops.exceptions import ZonemapError
    from lakeops.zonemap.candidates import candidate_files
    from lakeops.zonemap.hot import set_hot_memory
    from lakeops.zonemap.reads import read_plan, read_pruned_arrow
    from lakeops.zonemap.where import predicate_of

    if limit < 0:
        raise CliError(f"--limit {limit}: must be 0 or more (rows printed; 0 prints only the counts)")
    spec, loaded = ctx.load(table)
    set_hot_memory(spec.zonemap.hot_memory_mb)
    try:
        predicate = predicate_of(where, loaded.schema())
    except ZonemapError as e:
        raise CliError(str(e)) from e
    began = time.perf_counter()
    found = candidate_files(loaded, predicate)
    planning_s = time.perf_counter() - began
    plan = read_plan(loaded, found, None)
    document: dict[str, Any] = {
        "command": "query", "table": spec.name, "where": where, "planning_ms": round(planning_s * 1000, 1),
        "live_files": found.live_files, "candidate_files": len(found.files),
        "pruned_by_index": found.live_files - len(found.files), "minmax_files": found.minmax_files,
        "coverage": round(found.coverage, 4), "replayed_snapshots": found.replayed_snapshots,
        "full_listing": found.full_listing, "spark_read": {"method": plan.method, "reason": plan.reason},
    }
    if not explain:
        began = time.perf_counter()
        read = read_pruned_arrow(loaded, predicate, found=found)
        document.update(read_ms=round((time.perf_counter() - began) * 1000, 1), files_read=read.files_read,
                        rows=read.rows.num_rows, shown=read.rows.slice(0, limit).to_pylist())
    ctx.console.result(document, render_query(document))
    return EXIT_OK
