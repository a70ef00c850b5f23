"""How a pruned Spark read runs, decided from the index: literal candidates."""

from __future__ import annotations

import pytest
from pyiceberg import expressions as E
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from lakeops.exceptions import ZonemapError
from lakeops.zonemap.read_plan import ARROW_MAX_FILES, MAX_STAGED, java_strings, partition_values, plan_spark_read
from lakeops.zonemap.where import predicate_of

SIZES = {"a.parquet": 10, "b.parquet": 20}
COUNTS = {"a.parquet": 1, "b.parquet": 2}
PARTS = {"a.parquet": "20412", "b.parquet": "None"}
TWO = ["a.parquet", "b.parquet"]


def test_few_candidates_are_staged_from_the_index():
    plan = plan_spark_read(TWO, 60, SIZES, COUNTS, PARTS, ["date"], has_deletes=False, specs=1, arrow_max_bytes=0)
    assert plan.method == "staged"
    assert [f.partition for f in plan.files] == [("2025-11-20",), ("null",)]
    assert [f.values for f in plan.files] == [(20412,), (None,)]
    assert [(f.size, f.records) for f in plan.files] == [(10, 1), (20, 2)]


def test_few_small_candidates_are_read_in_the_driver_up_to_the_bounds():
    plan = plan_spark_read(TWO, 60, SIZES, COUNTS, PARTS, ["date"], has_deletes=False, specs=1, arrow_max_bytes=30)
    assert plan.method == "arrow" and "30 bytes" in plan.reason and len(plan.files) == 2
    assert plan_spark_read(TWO, 60, SIZES, COUNTS, PARTS, ["date"], False, 1, arrow_max_bytes=29).method == "staged"
    many = [f"f{i}.parquet" for i in range(ARROW_MAX_FILES + 1)]
    sizes, counts, parts = dict.fromkeys(many, 1), dict.fromkeys(many, 1), dict.fromkeys(many, "1")
    assert plan_spark_read(many, 10**6, sizes, counts, parts, ["date"], False, 1).method == "staged"
    assert plan_spark_read(many[:-1], 10**6, sizes, counts, parts, ["date"], False, 1).method == "arrow"
    assert plan_spark_read(["a.parquet"], 60, SIZES, COUNTS, PARTS, ["date"], has_deletes=True, specs=1).method == "planned"


def test_little_pruning_beyond_min_max_falls_back_to_a_plain_scan():
    plan = plan_spark_read(TWO, 3, SIZES, COUNTS, PARTS, ["date"], has_deletes=False, specs=1)
    assert plan.method == "plain" and "plain Iceberg scan" in plan.reason
    many = [f"f{i}" for i in range(MAX_STAGED + 1)]
    assert plan_spark_read(many, 10**9, {}, {}, {}, [], False, 1).method == "plain"
    assert plan_spark_read([], 10, {}, {}, {}, [], False, 1).method == "empty"


def test_deletes_evolved_specs_and_unknown_partitions_are_planned_by_iceberg():
    assert plan_spark_read(["a.parquet"], 60, SIZES, COUNTS, PARTS, ["date"], has_deletes=True, specs=1).method == "planned"
    assert plan_spark_read(["a.parquet"], 60, SIZES, COUNTS, PARTS, ["date"], has_deletes=False, specs=2).method == "planned"
    assert plan_spark_read(["a.parquet"], 60, SIZES, COUNTS, {"a.parquet": "1,2"}, ["date"], False, 1).method == "planned"
    assert plan_spark_read(["a.parquet"], 60, {"a.parquet": 0}, COUNTS, PARTS, ["date"], False, 1).method == "planned"
    orc = plan_spark_read(["a.orc"], 60, {"a.orc": 10}, {"a.orc": 1}, {"a.orc": "1"}, ["date"], False, 1)
    assert orc.method == "planned" and "may not be a Parquet file" in orc.reason


def test_partition_values_restore_pyiceberg_forms():
    assert partition_values("7,DE,True,None", ["long", "string", "boolean", "int"]) == (7, "DE", True, None)
    assert partition_values("20412", ["date"]) == (20412,)
    assert partition_values("yes", ["boolean"]) is None
    assert partition_values("x", ["int"]) is None
    assert partition_values("a,b", ["string"]) is None


def test_java_strings():
    assert java_strings((), []) == ()
    types = ["long", "string", "boolean"]
    assert java_strings(partition_values("7,DE,True", types), types) == ("7", "DE", "true")
    assert partition_values("1.5", ["double"]) is None
    assert partition_values(None, ["int"]) is None


SCHEMA = Schema(NestedField(1, "user_id", LongType()), NestedField(2, "country", StringType()))


def test_where_strings_parse_and_are_checked_against_the_schema():
    assert predicate_of("user_id = 7 AND country IN ('DE', 'FR')", SCHEMA) == E.And(
        E.EqualTo("user_id", 7), E.In("country", ("DE", "FR")))
    assert predicate_of(None, SCHEMA) == E.AlwaysTrue()
    with pytest.raises(ZonemapError, match="cannot parse the WHERE clause"):
        predicate_of("user_id ==== 7", SCHEMA)
    with pytest.raises(ZonemapError, match="its columns are: user_id, country"):
        predicate_of("usr_id = 7", SCHEMA)
