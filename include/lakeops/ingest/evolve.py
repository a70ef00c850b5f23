"""Schema drift under `ingest.evolve: add_columns`: from the fields a batch holds that the table has no column for (or
holds in a wider type), the columns to add and widen before the batch is written. Pure: the statements are run by
the ingest job."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lakeops.cdc.sqltype import parse_sql_type
from lakeops.cdc.values import widens
from lakeops.tables.identifier import quote, validate_name
from lakeops.tables.live import LiveColumn

_NUMERIC_ORDER = ("INT", "BIGINT", "FLOAT", "DOUBLE")


@dataclass(frozen=True)
class ColumnChange:
    column: str
    sql_type: str
    kind: str
    """add | widen"""

    def sql(self, table: str) -> str:
        if self.kind == "add":
            return f"ALTER TABLE {table} ADD COLUMN {quote(self.column)} {self.sql_type}"
        return f"ALTER TABLE {table} ALTER COLUMN {quote(self.column)} TYPE {self.sql_type}"


def _merged(types: set[str]) -> str:
    """One type for a new field seen with several: the wider number, else text."""
    if len(types) == 1:
        return next(iter(types))
    if types <= set(_NUMERIC_ORDER):
        return max(types, key=_NUMERIC_ORDER.index)
    return "STRING"


def plan_column_changes(columns: tuple[LiveColumn, ...], observed: Iterable[tuple[str, str]]) -> list[ColumnChange]:
    """The columns to add (fields the table lacks, typed from what the batch holds) and to widen (int to bigint, float
    to double, a decimal's precision), in a stable order. A field whose name is not a valid column name is left out
    (its records are not affected: the field is ignored)."""
    existing = {c.name: c for c in columns}
    seen: dict[str, set[str]] = {}
    for name, sql_type in observed:
        seen.setdefault(name, set()).add(sql_type.upper() if "<" not in sql_type else sql_type)
    changes = []
    for name in sorted(seen):
        try:
            validate_name(name, "column")
        except Exception:
            continue
        if name not in existing:
            changes.append(ColumnChange(name, _merged(seen[name]), "add"))
            continue
        current = parse_sql_type(existing[name].sql_type)
        wider = [t for t in seen[name] if widens(current, t)]
        if wider:
            best = max(wider, key=lambda t: (parse_sql_type(t).precision, _NUMERIC_ORDER.index(t) if t in _NUMERIC_ORDER else 0))
            changes.append(ColumnChange(name, best, "widen"))
    return changes


def variant_sql_type(schema: str | None) -> str | None:
    """The column type for a JSON field from Spark's schema_of_variant_agg of its values: integers BIGINT, other
    numbers DOUBLE, booleans, strings; objects and arrays are kept as JSON text (STRING); only nulls: None."""
    if not schema or schema.upper() == "VOID":
        return None
    upper = schema.upper()
    if upper in ("BIGINT", "INT", "SMALLINT", "TINYINT"):
        return "BIGINT"
    if upper.startswith("DECIMAL") or upper in ("DOUBLE", "FLOAT"):
        return "DOUBLE"
    if upper == "BOOLEAN":
        return "BOOLEAN"
    return "STRING"
