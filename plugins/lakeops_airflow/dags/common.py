"""What every rendered DAG shares: the start date, the `tables` param, the task that lists the tables a
maintenance run works on, and the labels that show each mapped task under its table's name."""

from __future__ import annotations

from typing import Any

import pendulum
from airflow.sdk import Param, task

START_DATE = pendulum.datetime(2026, 11, 1, tz="UTC")
IDENTIFIER_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"
TABLE_LABEL = "{{ task.job_args[1] }}"
"""map_index_template of a mapped spark-submit whose job_args start with --table <name>."""


def interval_bound(name: str) -> str:
    """A Jinja expression: the run's data_interval_start or data_interval_end as ISO text, else ''. A run without a
    logical date (asset-triggered, or triggered without one) has no such key in its context, and Airflow renders
    with StrictUndefined, so the key is tested with `is defined` before it is used."""
    return f"({name}.isoformat() if {name} is defined and {name} else '')"


def tables_param(what: str) -> Param:
    return Param([], type="array", items={"type": "string", "pattern": IDENTIFIER_PATTERN},
                 description=f"tables to {what}, as namespace.table (empty: every maintained table it applies to)")


def table_args(tables: list[str], *extra: str) -> list[list[str]]:
    """spark-submit arguments per table: --table <name> first (the label), then `extra`."""
    return [["--table", name, *extra] for name in tables]


@task
def list_tables(kind: str, params: dict[str, Any] | None = None) -> list[str]:
    """The maintained tables this run works on (lakeops.tables.selection), from the config, the discovery
    rules and each table's settings, now."""
    from lakeops.catalog import load_catalog
    from lakeops.config import load_config
    from lakeops.tables.selection import select_tables

    config = load_config()
    return select_tables(config, load_catalog(config.catalog), kind, (params or {}).get("tables") or ())
