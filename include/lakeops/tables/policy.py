"""Where each setting of a table comes from: code default, then the config's `defaults`, then the table's
own Iceberg properties, then the table's entry in the config. Pure: the caller passes the properties.

Iceberg's own keys are read where they exist (write.target-file-size-bytes, history.expire.*); every
other setting has a `lakeops.<section>.<setting>` key (dashes for underscores), so anyone can tune a
table from any engine with ALTER TABLE ... SET TBLPROPERTIES.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from lakeops.exceptions import ConfigError

PROPERTY_PREFIX = "lakeops."
POLICY_SECTIONS = ("compaction", "retention", "health", "zonemap")
"""Table sections a table property may set; ingest and streaming settings belong to the pipeline (config only)."""
TOP_LEVEL = ("freshness_sla_minutes",)

MIB = 1024 * 1024
HOUR_MS = 3600 * 1000


def _ceil_div(value: str, unit: int) -> int:
    return max(1, math.ceil(int(value) / unit))


ICEBERG_PROPERTIES: dict[str, tuple[str, Callable[[str], Any]]] = {
    "write.target-file-size-bytes": ("compaction.target_file_size_mb", lambda v: _ceil_div(v, MIB)),
    "history.expire.max-snapshot-age-ms": ("retention.max_snapshot_age_hours", lambda v: _ceil_div(v, HOUR_MS)),
    "history.expire.min-snapshots-to-keep": ("retention.min_snapshots", int),
}
"""Iceberg's own table properties that carry a lakeops setting: (setting, conversion). Sizes round up to
whole MiB and ages up to whole hours, the safe direction for both."""


def property_name(setting: str) -> str:
    """`compaction.delete_ratio_threshold` -> `lakeops.compaction.delete-ratio-threshold`."""
    return PROPERTY_PREFIX + setting.replace("_", "-")


@dataclass(frozen=True)
class Origin:
    """Where an effective value came from."""

    source: str
    """default | config defaults | table property | config table"""
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.source} ({self.detail})" if self.detail else self.source


def _from_text(text: str, hint: Any, where: str) -> Any:
    """A property's string value as the setting's type."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        if text.strip().lower() in ("", "none", "null"):
            return None
        hint = next(a for a in typing.get_args(hint) if a is not type(None))
        origin = typing.get_origin(hint)
    try:
        if origin is tuple:
            return [part.strip() for part in text.split(",") if part.strip()]
        if hint is bool:
            lowered = text.strip().lower()
            if lowered not in ("true", "false"):
                raise ValueError(text)
            return lowered == "true"
        if hint is int:
            return int(text)
        if hint is float:
            return float(text)
        if hint is str:
            return text
    except ValueError:
        pass
    kind = {bool: "true or false", int: "a whole number", float: "a number"}.get(hint, "a value")
    raise ConfigError(f"{where}: {text!r} must be {kind}; fix it with ALTER TABLE ... SET TBLPROPERTIES or UNSET it")


def section_fields(section_class: type) -> dict[str, Any]:
    return typing.get_type_hints(section_class)


def settings_from_properties(properties: Mapping[str, str], sections: Mapping[str, type],
                             top_level: Mapping[str, Any], table: str) -> dict[str, tuple[Any, Origin]]:
    """`section.setting` (or a top-level setting) -> (value, origin) for each property that sets one."""
    found: dict[str, tuple[Any, Origin]] = {}
    for key, (setting, convert) in ICEBERG_PROPERTIES.items():
        if key in properties:
            try:
                value = convert(properties[key])
            except ValueError:
                raise ConfigError(f"table {table}: property {key} = {properties[key]!r} is not a whole number; "
                                  "fix it with ALTER TABLE ... SET TBLPROPERTIES") from None
            found[setting] = (value, Origin("table property", f"{key} = {properties[key]}"))
    hints = {f"{name}.{field}": hint for name, cls in sections.items() for field, hint in section_fields(cls).items()}
    hints.update(top_level)
    for setting, hint in hints.items():
        key = property_name(setting)
        if key in properties:
            value = _from_text(properties[key], hint, f"table {table}: property {key}")
            found[setting] = (value, Origin("table property", f"{key} = {properties[key]}"))
    known = {property_name(s) for s in hints}
    unknown = sorted(k for k in properties if k.startswith(PROPERTY_PREFIX) and k not in known
                     and not k.startswith(("lakeops.batch", "lakeops.watermark")))
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0], sorted(known), n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise ConfigError(f"table {table}: property {unknown[0]!r} is not a lakeops setting; {hint}fix it with ALTER TABLE "
                          "... SET TBLPROPERTIES or remove it with UNSET TBLPROPERTIES (docs/configuration.md lists them all)")
    return found


def layered(defaults: Mapping[str, Any], table_entry: Mapping[str, Any],
            from_properties: Mapping[str, tuple[Any, Origin]], table: str,
            settings: typing.Iterable[str]) -> tuple[dict[str, dict[str, Any]], dict[str, Origin]]:
    """The raw settings of each section after layering, and the origin of every setting named in `settings`.

    `defaults` and `table_entry` are the raw mappings of the config file (section -> setting -> value, and
    top-level settings); `from_properties` is settings_from_properties' result."""
    merged: dict[str, dict[str, Any]] = {}
    origins: dict[str, Origin] = {}
    for setting in settings:
        section, dot, name = setting.rpartition(".")
        if dot:
            d = (defaults.get(section) or {})
            e = (table_entry.get(section) or {})
        else:
            d, e, name = defaults, table_entry, setting
        value: Any = dataclasses.MISSING
        origin = Origin("default")
        if name in d:
            value, origin = d[name], Origin("config defaults", f"defaults.{setting}")
        if setting in from_properties:
            value, origin = from_properties[setting]
        if name in e:
            value, origin = e[name], Origin("config table", f"tables.{table}.{setting}")
        origins[setting] = origin
        if value is not dataclasses.MISSING:
            merged.setdefault(section if dot else "", {})[name] = value
    return merged, origins
