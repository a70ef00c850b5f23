"""`lakeops zonemap build TABLE` (the first index of a table that has none, from its manifests, in this
process) and `lakeops zonemap consolidate TABLE --hour H | --day D` (spark-submit zonemap_hourly or
zonemap_daily, as the zonemap DAGs do)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lakeops.cli.context import Context
from lakeops.cli.render.zonemap import render_zonemap
from lakeops.cli.values import EXIT_OK, CliError, consolidation_target

if TYPE_CHECKING:
    from pyiceberg.table import Table

    from lakeops.config import TableConfig


def _indexed(ctx: Context, table: str) -> tuple[TableConfig, Table]:
    """The table and its settings, refused when it has no zonemap columns or names one it lacks."""
    from lakeops.tables.effective import zonemap_field_ids

    spec, loaded = ctx.load(table)
    if not spec.zonemap.columns:
        raise CliError(f"table {spec.name} has no zonemap columns, so it has no zonemap; set zonemap.columns in its "
                       f"config entry in {ctx.config_path} or the table property lakeops.zonemap.columns (e.g. ALTER TABLE "
                       f"... SET TBLPROPERTIES ('lakeops.zonemap.columns'='ts,account_id'))")
    zonemap_field_ids(spec, loaded)
    return spec, loaded


def build(ctx: Context, table: str) -> int:
    from lakeops.zonemap.bootstrap import build_index

    spec, loaded = _indexed(ctx, table)
    with ctx.console.library_log(logging.INFO):
        result = build_index(loaded, spec)
    document = {"command": "zonemap build", "table": spec.name, "result": result.as_dict()}
    ctx.console.result(document, render_zonemap(document))
    return EXIT_OK


def consolidate(ctx: Context, table: str, hour: str | None, day: str | None) -> int:
    target = consolidation_target(hour, day)
    spec, _ = _indexed(ctx, table)
    result = ctx.run_job(target.job, ["--table", spec.name, *target.job_args])
    document = {"command": "zonemap consolidate", "table": spec.name, "level": target.level, "period": target.period,
                "result": result}
    ctx.console.result(document, render_zonemap(document))
    return EXIT_OK
