"""pyiceberg expressions rendered as Spark SQL, against literal strings."""

from __future__ import annotations

import pytest
from pyiceberg import expressions as E
from pyiceberg.schema import Schema
from pyiceberg.types import FloatType, LongType, NestedField, StringType, TimestamptzType

from lakeops.zonemap.sql import to_spark_sql

SCHEMA = Schema(NestedField(1, "user_id", LongType()), NestedField(2, "country", StringType(), required=False),
                NestedField(3, "score", FloatType(), required=False), NestedField(4, "event_time", TimestamptzType()))


@pytest.mark.parametrize("predicate,sql", [
    (E.EqualTo("user_id", 7), "(`user_id` = 7)"),
    (E.In("country", ["DE", "it's"]), "(`country` IN ('DE', 'it\\'s'))"),
    (E.And(E.IsNull("country"), E.Not(E.LessThan("score", 0.1))),
     "((`country` IS NULL) AND (NOT (`score` < CAST('0.1' AS FLOAT))))"),
    (E.GreaterThanOrEqual("event_time", "2026-11-21T10:00:00+00:00"),
     "(`event_time` >= TIMESTAMP '2026-11-21T10:00:00+00:00')"),
    (E.Or(E.StartsWith("country", "D"), E.NotIn("user_id", [1, 2])), "(startswith(`country`, 'D') OR (`user_id` NOT IN (1, 2)))"),
])
def test_predicates_render_as_spark_sql(predicate, sql):
    assert to_spark_sql(predicate, SCHEMA) == sql
