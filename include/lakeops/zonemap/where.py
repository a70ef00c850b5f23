"""Predicates as people write them: a SQL WHERE string (pyiceberg's expression parser) or a pyiceberg
expression, checked against the table's schema so a typo fails before anything is read."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyiceberg.expressions import AlwaysTrue, BooleanExpression
from pyiceberg.expressions.visitors import bind

from lakeops.exceptions import ZonemapError

if TYPE_CHECKING:
    from pyiceberg.schema import Schema


def predicate_of(where: str | BooleanExpression | None, schema: Schema) -> BooleanExpression:
    """The predicate for where (None: every row), bound once against schema to check its columns and literals."""
    from pyiceberg.expressions.parser import parse

    if where is None:
        return AlwaysTrue()
    if isinstance(where, str):
        try:
            predicate = parse(where)
        except Exception as e:  # pyparsing raises its own ParseException (not a ValueError)
            raise ZonemapError(f"cannot parse the WHERE clause {where!r}: {e}; write it as SQL, e.g. "
                               "\"user_id = 42 AND event_time >= '2026-11-21T10:00:00+00:00'\"") from e
    else:
        predicate = where
    try:
        bind(schema, predicate, case_sensitive=True)
    except (ValueError, TypeError) as e:
        columns = ", ".join(f.name for f in schema.columns)
        raise ZonemapError(f"the predicate {where!r} does not fit the table ({e}); its columns are: {columns}") from e
    return predicate
