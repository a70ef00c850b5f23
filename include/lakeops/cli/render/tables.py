"""`lakeops tables [--explain]`: each maintained table, and with --explain each effective policy setting and
where it came from. Pure: document rows from TableConfig values, text from the document."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lakeops.cli.render.text import columns, number

if TYPE_CHECKING:
    from lakeops.config import TableConfig

ORIGIN_NAMES = {"default": "default", "config defaults": "config defaults", "table property": "table property",
                "config table": "config entry"}
"""The origins a setting can have, lowest precedence first, as the command line names them."""


def setting_value(spec: TableConfig, setting: str) -> Any:
    """The effective value of `section.name` (or a top-level setting) of a table, JSON-ready."""
    section, dot, name = setting.rpartition(".")
    value = getattr(getattr(spec, section) if dot else spec, name)
    return list(value) if isinstance(value, tuple) else value


def explained(spec: TableConfig) -> dict[str, dict[str, Any]]:
    """setting -> {value, origin, and where: `property` (the table property's key and its raw value) or
    `key` (the config file's key)}, for every policy setting, in lakeops.config.POLICY_SETTINGS order."""
    from lakeops.config import POLICY_SETTINGS

    out: dict[str, dict[str, Any]] = {}
    for setting in POLICY_SETTINGS:
        origin = spec.origins.get(setting)
        source = origin.source if origin else "default"
        entry: dict[str, Any] = {"value": setting_value(spec, setting), "origin": ORIGIN_NAMES.get(source, source)}
        if origin and origin.detail:
            if source == "table property":
                key, _, raw = origin.detail.partition(" = ")
                entry["property"], entry["property_value"] = key, raw
            else:
                entry["key"] = origin.detail
        out[setting] = entry
    return out


def table_row(spec: TableConfig, configured: bool, exists: bool) -> dict[str, Any]:
    """What `lakeops tables` says of one table without reading more than whether it exists."""
    row: dict[str, Any] = {"table": spec.name, "maintained_by": "config entry" if configured else "discovery rule",
                           "exists": exists}
    if spec.ingested:
        source = f"kafka:{spec.ingest.kafka.topic}" if spec.ingest.kafka is not None else spec.source_dir
        row["ingest"] = {"source": source, "format": spec.ingest.format, "mode": spec.ingest.mode,
                         "commit_mode": spec.ingest.commit_mode}
    return row


def _where(entry: dict[str, Any]) -> str:
    if "property" in entry:
        return f"{entry['origin']} {entry['property']} = {entry['property_value']}"
    if "key" in entry:
        return f"{entry['origin']} ({entry['key']})"
    return str(entry["origin"])


def _status(row: dict[str, Any]) -> str:
    parts = [str(row["maintained_by"]).replace("config entry", "configured").replace("discovery rule", "discovered"),
             "exists" if row["exists"] else "not created yet"]
    ingest = row.get("ingest")
    if ingest:
        parts.append(f"ingests {ingest['format']} from {ingest['source']} ({ingest['mode']}, {ingest['commit_mode']})")
    return ", ".join(parts)


def render_tables(document: dict[str, Any]) -> str:
    rows = document["tables"]
    lines = [f"{len(rows)} maintained table(s) in catalog {document['catalog']} (config {document['config']})"]
    if not document.get("explain"):
        lines += columns([[row["table"], _status(row)] for row in rows], indent="  ")
        for row in rows:
            if row.get("error"):
                lines.append(f"  {row['table']}: {row['error']}")
        return "\n".join(lines)
    for row in rows:
        lines += ["", f"{row['table']}  ({_status(row)})"]
        if not row["exists"]:
            lines.append("  not created yet: these come from the config only; its own table properties apply once it exists")
        if row.get("error"):
            lines.append(f"  error: {row['error']}")
        settings = row.get("settings") or {}
        lines += columns([[name, number(entry["value"]), _where(entry)] for name, entry in settings.items()], indent="  ")
    return "\n".join(lines)
