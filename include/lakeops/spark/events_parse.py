"""JSON lines -> the table's columns: each column from its JSON path (ingest.fields; default the top-level field of
its name), typed as the column; a row that does not fit gets a reason naming the field (null for a good row).
Fields the table has no column for are ignored, quarantined or added as columns (ingest.unknown_fields, evolve)."""

from __future__ import annotations

import functools
import logging
import operator
from typing import TYPE_CHECKING

from lakeops.config import IngestConfig
from lakeops.ingest.evolve import plan_column_changes, variant_sql_type
from lakeops.tables.live import LiveColumn

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

log = logging.getLogger(__name__)

INGESTED_AT = "ingested_at"
"""The column the job stamps with the ingest time, when the table has one; every other column is read from the line."""
_TIME_TYPES = ("TIMESTAMP", "TIMESTAMP_NTZ", "DATE")


def column_path(column: str, ingest: IngestConfig | None) -> str:
    """The JSON path a column is read from."""
    return (ingest.fields.get(column) if ingest else None) or "$['" + column + "']"


def path_root(path: str) -> str:
    """The top-level field a JSON path starts with: $.user.id -> user, $['a b'].c -> a b."""
    rest = path[1:]
    if rest.startswith("['"):
        return rest[2:rest.index("']")]
    name = rest[1:]
    for stop in (".", "["):
        name = name.split(stop)[0]
    return name


def known_roots(columns: tuple[LiveColumn, ...], ingest: IngestConfig | None) -> list[str]:
    return sorted({path_root(column_path(c.name, ingest)) for c in columns})


def _unknown_fields(columns: tuple[LiveColumn, ...], ingest: IngestConfig | None) -> Column:
    """The line's top-level fields that no column reads."""
    from pyspark.sql import functions as F

    return F.array_except(F.expr("coalesce(json_object_keys(value), array())"),
                          F.array(*[F.lit(r) for r in known_roots(columns, ingest)]))


def parse_events(raw: DataFrame, columns: tuple[LiveColumn, ...], ingest: IngestConfig | None = None) -> DataFrame:
    """raw(value, source_file) -> the table's columns typed from each JSON line (times from ISO-8601 strings) +
    `reason` (null for a good row). The ingested_at column is left to the job.

    Each column is read from the parsed line straight as its type (one variant lookup per column and row, t<i>, a
    projection of its own); the untyped lookup that tells a missing field from a wrong type, and the message, are
    made only for a row whose typed value is null. Whether the line is an object is read from its first
    non-whitespace character (a parseable line starting with '{' is an object), not from a schema of the document."""
    from pyspark.sql import functions as F

    targets = [c for c in columns if c.name != INGESTED_AT]
    paths = [column_path(c.name, ingest).replace('"', '\\"') for c in targets]
    typed_sql = []
    for column, path in zip(targets, paths, strict=True):
        if column.sql_type in _TIME_TYPES:
            typed_sql.append(f"try_cast(try_variant_get(v, \"{path}\", 'string') AS {column.sql_type})")
        else:
            typed_sql.append(f"try_variant_get(v, \"{path}\", '{column.sql_type}')")
    looked_up = raw.select("value", "source_file", F.expr("try_parse_json(value)").alias("v")).select(
        "value", "source_file", "v", *[F.expr(sql).alias(f"t{i}") for i, sql in enumerate(typed_sql)])
    parsed = F.col("v").isNotNull()
    is_object = F.coalesce(F.ltrim(F.col("value"), F.lit(" \t\r\n")).startswith("{"), F.lit(False))
    checks = [(~parsed, F.lit("malformed JSON: not a parseable JSON document")),
              (parsed & ~is_object,
               F.concat(F.lit("not a JSON object: got "), F.expr("left(to_json(v), 80)")))]
    values = {}
    unknown_check = None
    for i, (column, path) in enumerate(zip(targets, paths, strict=True)):
        typed = F.col(f"t{i}")
        found = f"try_variant_get(v, \"{path}\", 'variant')"
        present = F.expr(f"{found} IS NOT NULL AND NOT is_variant_null({found})")
        where = column.name if path == f"$['{column.name}']" else f"{column.name} ({path})"
        if column.required:
            checks.append((parsed & typed.isNull() & ~present, F.lit(f"missing required field {where}")))
        got = F.expr(f"left(to_json({found}), 80)")
        checks.append((typed.isNull() & present, F.concat(F.lit(f"field {where}: expected {column.sql_type}, got "),
                                                         got)))
        values[column.name] = typed
    if ingest is not None and ingest.unknown_field_policy == "quarantine":
        unknown = _unknown_fields(columns, ingest)
        first = F.element_at(unknown, 1)
        unknown_check = parsed & (F.size(unknown) > 0)
        checks.append((unknown_check, F.concat(
            F.lit("unknown field "), first, F.lit(" (value "),
            F.left(F.expr("get_json_object(value, concat('$[\\'', element_at(" + _unknown_sql(columns, ingest)
                          + ", 1), '\\']'))"), F.lit(80)),
            F.lit("): the table has no column for it; add the column, map it in ingest.fields, or set "
                  "ingest.unknown_fields: ignore or ingest.evolve: add_columns"))))
    # A row whose every column was found and typed needs none of the checks: only the others are looked at again.
    fits = functools.reduce(operator.and_, [parsed, is_object, *[F.col(f"t{i}").isNotNull() for i in range(len(targets))]])
    if unknown_check is not None:
        fits = fits & ~unknown_check
    reason = F.when(~fits, F.coalesce(*[F.when(failed, message) for failed, message in checks]))
    return looked_up.select("value", "source_file", *[expr.alias(name) for name, expr in values.items()],
                            reason.alias("reason"))


def _unknown_sql(columns: tuple[LiveColumn, ...], ingest: IngestConfig | None) -> str:
    roots = ", ".join("'" + r.replace("'", "\\'") + "'" for r in known_roots(columns, ingest))
    return f"array_except(coalesce(json_object_keys(value), array()), array({roots}))"


def evolve_event_columns(spark: SparkSession, table: str, raw: DataFrame, columns: tuple[LiveColumn, ...],
                         ingest: IngestConfig) -> list[str]:
    """Under evolve: add_columns, add a column for every top-level field of the lines that no column reads (typed
    from the values, lakeops.ingest.evolve.variant_sql_type) and return what changed; nothing otherwise."""
    from pyspark.sql import functions as F

    if ingest.unknown_field_policy != "add_columns":
        return []
    names = [r[0] for r in raw.select(F.explode(_unknown_fields(columns, ingest))).distinct().collect()]
    if not names:
        return []
    typed = raw.select(F.expr("try_parse_json(value)").alias("v")).agg(*[
        F.expr("schema_of_variant_agg(try_variant_get(v, \"$['" + n.replace('"', '\\"') + "']\", 'variant'))").alias(f"t{i}")
        for i, n in enumerate(names)]).collect()[0]
    observed = [(n, t) for i, n in enumerate(names) if (t := variant_sql_type(typed[f"t{i}"]))]
    changes = [c for c in plan_column_changes(columns, observed) if c.kind == "add"]
    for change in changes:
        log.info("table %s: add column %s %s (evolve: add_columns)", table, change.column, change.sql_type)
        spark.sql(change.sql(table))
    return [f"add {c.column} {c.sql_type}" for c in changes]
