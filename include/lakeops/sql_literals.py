"""Python values written as Spark SQL literals: pure."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any


def quote(value: str) -> str:
    """A string literal, backslashes and single quotes escaped: it's -> 'it\\'s'."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def literal(value: Any) -> str:
    """NULL, true/false, a number, DATE '…', TIMESTAMP '…' (a datetime with a zone; TIMESTAMP_NTZ
    without one), or else the value's str() as a string literal."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return f"CAST('{value}' AS DOUBLE)"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, datetime):
        return f"TIMESTAMP '{value.isoformat()}'" if value.tzinfo else f"TIMESTAMP_NTZ '{value.isoformat()}'"
    if isinstance(value, date):
        return f"DATE '{value.isoformat()}'"
    return quote(str(value))


def string_map(mapping: Mapping[str, str]) -> str:
    """map('k1', 'v1', 'k2', 'v2'), keys sorted, as Iceberg's procedures take options."""
    return "map(" + ", ".join(f"{quote(k)}, {quote(v)}" for k, v in sorted(mapping.items())) + ")"


def properties(mapping: Mapping[str, str]) -> str:
    """'k1' = 'v1', 'k2' = 'v2' in the mapping's order, as TBLPROPERTIES (...) takes them."""
    return ", ".join(f"{quote(k)} = {quote(v)}" for k, v in mapping.items())
