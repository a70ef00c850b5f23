"""How a pruned Spark read runs, decided from the index: literal candidates."""

from __future__ import annotations

import pytest
from pyiceberg import expressions as E
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from lakeops.exceptions import ZonemapError
from lakeops.zonemap.read_plan import MAX_STAGED, partition_strings, plan_spark_read
from lakeops.zonemap.where import predicate_of

SIZES = {"a": 10, "b": 20}
COUNTS = {"a": 1, "b": 2}
PARTS = {"a": "20412", "b": "None"}


def test_few_candidates_are_staged_from_the_index():
    plan = plan_spark_read(["a", "b"], 60, SIZES, COUNTS, PARTS, ["date"], has_deletes=False, specs=1)
    assert plan.method == "staged"
    assert [f.partition for f in plan.files] == [("2025-11-20",), ("null",)]
    assert [(f.size, f.records) for f in plan.files] == [(10, 1), (20, 2)]


def test_little_pruning_beyond_min_max_falls_back_to_a_plain_scan():
    plan = plan_spark_read(["a", "b"], 3, SIZES, COUNTS, PARTS, ["date"], has_deletes=False, specs=1)
    assert plan.method == "plain" and "plain Iceberg scan" in plan.reason
    many = [f"f{i}" for i in range(MAX_STAGED + 1)]
    assert plan_spark_read(many, 10**9, {}, {}, {}, [], False, 1).method == "plain"
    assert plan_spark_read([], 10, {}, {}, {}, [], False, 1).method == "empty"


def test_deletes_evolved_specs_and_unknown_partitions_are_planned_by_iceberg():
    assert plan_spark_read(["a"], 60, SIZES, COUNTS, PARTS, ["date"], has_deletes=True, specs=1).method == "planned"
    assert plan_spark_read(["a"], 60, SIZES, COUNTS, PARTS, ["date"], has_deletes=False, specs=2).method == "planned"
    assert plan_spark_read(["a"], 60, SIZES, COUNTS, {"a": "1,2"}, ["date"], False, 1).method == "planned"
    assert plan_spark_read(["a"], 60, {"a": 0}, COUNTS, PARTS, ["date"], False, 1).method == "planned"


def test_partition_strings():
    assert partition_strings("", []) == ()
    assert partition_strings("7,DE,True", ["long", "string", "boolean"]) == ("7", "DE", "true")
    assert partition_strings("1.5", ["double"]) is None
    assert partition_strings(None, ["int"]) is None


SCHEMA = Schema(NestedField(1, "user_id", LongType()), NestedField(2, "country", StringType()))


def test_where_strings_parse_and_are_checked_against_the_schema():
    assert predicate_of("user_id = 7 AND country IN ('DE', 'FR')", SCHEMA) == E.And(
        E.EqualTo("user_id", 7), E.In("country", ("DE", "FR")))
    assert predicate_of(None, SCHEMA) == E.AlwaysTrue()
    with pytest.raises(ZonemapError, match="cannot parse the WHERE clause"):
        predicate_of("user_id ==== 7", SCHEMA)
    with pytest.raises(ZonemapError, match="its columns are: user_id, country"):
        predicate_of("usr_id = 7", SCHEMA)
