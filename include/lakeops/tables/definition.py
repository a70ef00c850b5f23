"""A table lakeops creates, as the config declares it (`create:`): columns, partitioning, sort order,
key and extra properties. Tables lakeops did not create need none of this: their facts come from Iceberg."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lakeops.exceptions import ConfigError
from lakeops.tables.identifier import validate_name

_PRIMITIVES = ("BOOLEAN", "INT", "INTEGER", "BIGINT", "LONG", "FLOAT", "DOUBLE", "STRING", "BINARY", "DATE",
               "TIMESTAMP", "TIMESTAMP_NTZ", "VARIANT")
_DECIMAL = re.compile(r"DECIMAL\(\s*(\d{1,2})\s*,\s*(\d{1,2})\s*\)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_TRANSFORM = re.compile(r"(\w+)\s*\(\s*(?:(\d+)\s*,\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*\)")
TIME_TRANSFORMS = ("year", "month", "day", "hour")


def split_top_level(text: str) -> list[str]:
    """Split a type's inner text on commas outside angle brackets and parentheses, each part stripped."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "<(":
            depth += 1
        elif char in ">)":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def normalize_type(value: str, where: str) -> str:
    """A Spark SQL column type in canonical upper case; raises naming the type and the accepted forms."""
    text = value.strip()
    upper = text.upper()
    if upper in _PRIMITIVES:
        return {"INTEGER": "INT", "LONG": "BIGINT"}.get(upper, upper)
    if match := _DECIMAL.fullmatch(upper):
        precision, scale = int(match.group(1)), int(match.group(2))
        if not 1 <= precision <= 38 or scale > precision:
            raise ConfigError(f"{where}: {value!r} needs 1 <= precision <= 38 and scale <= precision, e.g. decimal(12, 2)")
        return f"DECIMAL({precision}, {scale})"
    for kind, arity in (("ARRAY", 1), ("MAP", 2), ("STRUCT", None)):
        if upper.startswith(kind + "<") and upper.endswith(">"):
            inner = split_top_level(text[len(kind) + 1:-1])
            if kind == "STRUCT":
                fields = []
                for item in inner:
                    name, colon, type_ = item.partition(":")
                    if not colon:
                        raise ConfigError(f"{where}: struct field {item!r} needs the form name: type")
                    fields.append(f"{validate_name(name.strip(), where)}: {normalize_type(type_, where)}")
                return f"STRUCT<{', '.join(fields)}>"
            if len(inner) != arity:
                raise ConfigError(f"{where}: {value!r} needs {arity} type(s) inside {kind.lower()}<...>")
            return f"{kind}<{', '.join(normalize_type(t, where) for t in inner)}>"
    raise ConfigError(f"{where}: {value!r} is not a column type; use one of {', '.join(t.lower() for t in _PRIMITIVES)}, "
                      "decimal(p, s), array<t>, map<k, v> or struct<name: t, ...>, optionally followed by 'not null'")


@dataclass(frozen=True)
class ColumnDef:
    name: str
    sql_type: str
    required: bool = False

    @classmethod
    def parse(cls, name: str, declaration: Any, where: str) -> ColumnDef:
        """`name: type` or `name: type not null`."""
        validate_name(name, f"{where}: column")
        if not isinstance(declaration, str):
            raise ConfigError(f"{where}.{name}: {declaration!r} must be a type such as 'bigint not null' or 'string'")
        text = declaration.strip()
        required = bool(re.search(r"\s+not\s+null$", text, flags=re.IGNORECASE))
        if required:
            text = re.sub(r"\s+not\s+null$", "", text, flags=re.IGNORECASE)
        return cls(name, normalize_type(text, f"{where}.{name}"), required)

    def ddl(self) -> str:
        return f"`{self.name}` {self.sql_type}{' NOT NULL' if self.required else ''}"


@dataclass(frozen=True)
class PartitionField:
    """One partition transform as written in the config: `day(ts)`, `bucket(16, id)`, `truncate(4, name)`, `id`."""

    transform: str
    """pyiceberg's name of the transform: identity, year, month, day, hour, bucket[N], truncate[W]."""
    column: str

    @classmethod
    def parse(cls, text: Any, where: str) -> PartitionField:
        """The config's Spark-style spelling -> pyiceberg's transform name (bucket(16, id) -> bucket[16]), checked
        here without importing pyiceberg: the config is read at DAG parse time. Predicates and DDL are built from
        pyiceberg's own transform parsing at run time (lakeops.compaction.where)."""
        if not isinstance(text, str):
            raise ConfigError(f"{where}: {text!r} must be a partition transform such as day(event_time)")
        stripped = text.strip()
        match = _TRANSFORM.fullmatch(stripped)
        name, width, column = (match.group(1).lower(), match.group(2), match.group(3)) if match else ("identity", None, stripped)
        arity = {"identity": False, "bucket": True, "truncate": True, **dict.fromkeys(TIME_TRANSFORMS, False)}
        if name not in arity or arity[name] != bool(width) or not _NAME.fullmatch(column):
            hint = f"; it needs its width, e.g. {name}(16, {column})" if name in ("bucket", "truncate") and not width else ""
            raise ConfigError(f"{where}: {text!r} is not a partition transform{hint}; use a column name or year(col), "
                              "month(col), day(col), hour(col), bucket(N, col), truncate(W, col)")
        return cls(f"{name}[{int(width)}]" if width else name, column)

    def spark_ddl(self) -> str:
        """The transform in Spark's PARTITIONED BY clause (time transforms in the plural)."""
        name, _, rest = self.transform.partition("[")
        column = f"`{self.column}`"
        if name == "identity":
            return column
        if name in TIME_TRANSFORMS:
            return f"{name}s({column})"
        return f"{name}({rest.rstrip(']')}, {column})"


@dataclass(frozen=True)
class TableDefinition:
    """What lakeops creates when the table does not exist yet."""

    columns: tuple[ColumnDef, ...]
    partition_by: tuple[PartitionField, ...] = ()
    sort_by: tuple[str, ...] = ()
    properties: dict[str, str] = field(default_factory=dict)

    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def check(self, where: str, key: tuple[str, ...] = ()) -> None:
        """Every column the partitioning, sort order and key name is declared."""
        known = self.column_names()
        if len(set(known)) != len(known):
            raise ConfigError(f"{where}.columns: a column is declared twice in {list(known)}")
        named = [(f"partition_by {p.transform}({p.column})", p.column) for p in self.partition_by]
        named += [("sort_by", c) for c in self.sort_by] + [("key", c) for c in key]
        for what, column in named:
            if column not in known:
                raise ConfigError(f"{where}: {what} names column {column!r}, which is not declared; columns: {', '.join(known)}")


def parse_definition(data: Any, where: str, key: tuple[str, ...] = ()) -> TableDefinition:
    """The `create:` block of a table entry."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping with columns, partition_by, sort_by, properties; got {data!r}")
    unknown = set(data) - {"columns", "partition_by", "sort_by", "properties"}
    if unknown:
        raise ConfigError(f"{where}: unknown key {sorted(unknown)[0]!r}; "
                          "allowed keys are columns, partition_by, sort_by, properties")
    columns = data.get("columns")
    if not isinstance(columns, dict) or not columns:
        raise ConfigError(f"{where}.columns: declare the columns as a mapping of name to type, "
                          "e.g. {{event_id: string not null, ts: timestamp}}")
    partition_by, sort_by = data.get("partition_by") or [], data.get("sort_by") or []
    properties = data.get("properties") or {}
    if not isinstance(partition_by, list) or not isinstance(sort_by, list):
        raise ConfigError(f"{where}: partition_by and sort_by must be lists, e.g. [day(event_time)]")
    if not isinstance(properties, dict) or not all(isinstance(v, str) for v in properties.values()):
        raise ConfigError(f"{where}.properties: {properties!r} must map property names to quoted strings")
    definition = TableDefinition(
        columns=tuple(ColumnDef.parse(str(name), decl, f"{where}.columns") for name, decl in columns.items()),
        partition_by=tuple(PartitionField.parse(p, f"{where}.partition_by") for p in partition_by),
        sort_by=tuple(validate_name(c, f"{where}.sort_by") for c in sort_by),
        properties={str(k): v for k, v in properties.items()},
    )
    definition.check(where, key)
    return definition
