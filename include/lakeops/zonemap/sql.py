"""Render a pyiceberg expression as a Spark SQL condition, literals typed as the bound field is
(so Spark compares exactly what the zonemap pruned on: a float column against a float literal)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from pyiceberg.expressions import BooleanExpression
from pyiceberg.expressions.visitors import BoundBooleanExpressionVisitor, bind, visit
from pyiceberg.schema import Schema
from pyiceberg.types import (
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    StringType,
    TimestampType,
    TimestamptzType,
)

from lakeops.exceptions import ConfigError
from lakeops.sql_literals import literal, quote

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_spark_sql(predicate: BooleanExpression, schema: Schema) -> str:
    return visit(bind(schema, predicate, case_sensitive=True), _Sql())


def _column(term: Any) -> str:
    return "`" + term.ref().field.name.replace("`", "``") + "`"


def _literal(value: Any, field_type: Any) -> str:
    if isinstance(field_type, StringType):
        return quote(value)
    if isinstance(field_type, BooleanType):
        return literal(bool(value))
    if isinstance(field_type, (IntegerType, LongType)):
        return literal(int(value))
    if isinstance(field_type, FloatType):
        return f"CAST('{float(value)!r}' AS FLOAT)"
    if isinstance(field_type, DoubleType):
        return f"CAST('{float(value)!r}' AS DOUBLE)"
    if isinstance(field_type, DecimalType):
        return f"CAST('{value}' AS DECIMAL({field_type.precision}, {field_type.scale}))"
    if isinstance(field_type, DateType):
        return literal(EPOCH.date() + timedelta(days=value))
    if isinstance(field_type, TimestamptzType):
        return literal(EPOCH + timedelta(microseconds=value))
    if isinstance(field_type, TimestampType):
        return literal((EPOCH + timedelta(microseconds=value)).replace(tzinfo=None))
    raise ConfigError(f"predicate literal {value!r} of type {field_type} cannot be rendered for Spark; "
                      "filter on a string, number, boolean, date or timestamp column")


class _Sql(BoundBooleanExpressionVisitor[str]):
    def visit_true(self) -> str:
        return "true"

    def visit_false(self) -> str:
        return "false"

    def visit_not(self, child_result: str) -> str:
        return f"(NOT {child_result})"

    def visit_and(self, left_result: str, right_result: str) -> str:
        return f"({left_result} AND {right_result})"

    def visit_or(self, left_result: str, right_result: str) -> str:
        return f"({left_result} OR {right_result})"

    def visit_is_null(self, term: Any) -> str:
        return f"({_column(term)} IS NULL)"

    def visit_not_null(self, term: Any) -> str:
        return f"({_column(term)} IS NOT NULL)"

    def visit_is_nan(self, term: Any) -> str:
        return f"isnan({_column(term)})"

    def visit_not_nan(self, term: Any) -> str:
        return f"(NOT isnan({_column(term)}))"

    def _op(self, term: Any, op: str, literal: Any) -> str:
        return f"({_column(term)} {op} {_literal(literal.value, term.ref().field.field_type)})"

    def visit_equal(self, term: Any, literal: Any) -> str:
        return self._op(term, "=", literal)

    def visit_not_equal(self, term: Any, literal: Any) -> str:
        return self._op(term, "<>", literal)

    def visit_less_than(self, term: Any, literal: Any) -> str:
        return self._op(term, "<", literal)

    def visit_less_than_or_equal(self, term: Any, literal: Any) -> str:
        return self._op(term, "<=", literal)

    def visit_greater_than(self, term: Any, literal: Any) -> str:
        return self._op(term, ">", literal)

    def visit_greater_than_or_equal(self, term: Any, literal: Any) -> str:
        return self._op(term, ">=", literal)

    def _list(self, term: Any, literals: set[Any]) -> str:
        field_type = term.ref().field.field_type
        return ", ".join(sorted(_literal(getattr(v, "value", v), field_type) for v in literals))

    def visit_in(self, term: Any, literals: set[Any]) -> str:
        return f"({_column(term)} IN ({self._list(term, literals)}))"

    def visit_not_in(self, term: Any, literals: set[Any]) -> str:
        return f"({_column(term)} NOT IN ({self._list(term, literals)}))"

    def visit_starts_with(self, term: Any, literal: Any) -> str:
        return f"startswith({_column(term)}, {_literal(literal.value, term.ref().field.field_type)})"

    def visit_not_starts_with(self, term: Any, literal: Any) -> str:
        return f"(NOT startswith({_column(term)}, {_literal(literal.value, term.ref().field.field_type)}))"
