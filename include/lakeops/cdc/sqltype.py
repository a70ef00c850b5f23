"""The Spark SQL type of a column (as lakeops.tables.live.spark_type writes it) parsed into a small tree: pure, so
the change-event decoder knows what each column holds without importing pyspark."""

from __future__ import annotations

from dataclasses import dataclass

from lakeops.tables.definition import split_top_level


@dataclass(frozen=True)
class SqlType:
    name: str
    """BIGINT, DECIMAL, TIMESTAMP, ARRAY, MAP, STRUCT, ..."""
    precision: int = 0
    scale: int = 0
    children: tuple[tuple[str, SqlType], ...] = ()
    """ARRAY: (("element", t),); MAP: (("key", k), ("value", v)); STRUCT: its fields."""

    def __str__(self) -> str:
        if self.name == "DECIMAL":
            return f"DECIMAL({self.precision}, {self.scale})"
        if self.name == "ARRAY":
            return f"ARRAY<{self.children[0][1]}>"
        if self.name == "MAP":
            return f"MAP<{self.children[0][1]}, {self.children[1][1]}>"
        if self.name == "STRUCT":
            return "STRUCT<" + ", ".join(f"{n}: {t}" for n, t in self.children) + ">"
        return self.name


def parse_sql_type(text: str) -> SqlType:
    """'DECIMAL(12, 2)' -> SqlType('DECIMAL', 12, 2); 'ARRAY<BIGINT>', 'MAP<STRING, STRING>', 'STRUCT<a: INT>' nest."""
    text = text.strip()
    upper = text.upper()
    if upper.startswith("DECIMAL"):
        inner = text[text.index("(") + 1:text.rindex(")")] if "(" in text else "10, 0"
        precision, scale = (int(p) for p in inner.split(","))
        return SqlType("DECIMAL", precision, scale)
    if upper.startswith(("ARRAY<", "MAP<", "STRUCT<")):
        name = upper[:upper.index("<")]
        parts = [p for p in split_top_level(text[text.index("<") + 1:text.rindex(">")]) if p]
        if name == "ARRAY":
            return SqlType(name, children=(("element", parse_sql_type(parts[0])),))
        if name == "MAP":
            return SqlType(name, children=(("key", parse_sql_type(parts[0])), ("value", parse_sql_type(parts[1]))))
        fields = []
        for part in parts:
            field, _, kind = part.partition(":")
            fields.append((field.strip().strip("`"), parse_sql_type(kind)))
        return SqlType(name, children=tuple(fields))
    return SqlType(upper)
