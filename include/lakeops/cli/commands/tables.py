"""`lakeops tables [--explain]`: every maintained table (configured and discovered, listed now), and with
--explain its effective settings (config defaults < its Iceberg properties < its config entry) and origins."""

from __future__ import annotations

from typing import Any

from lakeops.cli.context import Context
from lakeops.cli.render.tables import explained, render_tables, table_row
from lakeops.cli.values import EXIT_OK, EXIT_USAGE


def run(ctx: Context, explain: bool) -> int:
    from pyiceberg.exceptions import NoSuchTableError

    from lakeops.exceptions import ConfigError

    config, catalog = ctx.config, ctx.catalog
    rows: list[dict[str, Any]] = []
    for table_id in config.maintained(catalog):
        name = str(table_id)
        spec = config.table(name)
        try:
            loaded = catalog.load_table(name)
        except NoSuchTableError:
            loaded = None
        row = table_row(spec, name in config.tables, loaded is not None)
        if explain:
            try:
                row["settings"] = explained(spec.with_properties(loaded.properties) if loaded is not None else spec)
            except ConfigError as e:  # a bad table property: named, and the other tables still listed
                row["error"] = str(e)
        rows.append(row)
    document = {"command": "tables", "config": ctx.config_path, "catalog": config.catalog.name, "explain": explain,
                "tables": rows}
    ctx.console.result(document, render_tables(document))
    return EXIT_USAGE if any(row.get("error") for row in rows) else EXIT_OK
