from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from lakeops.etl.key_ranges import covering_ranges, range_condition, rangeable, sql_literal


def test_few_values_are_each_their_own_range_sorted_and_without_nulls_or_repeats():
    assert covering_ranges([7, None, 3, 7, 5], limit=3) == [(3, 3), (5, 5), (7, 7)]
    assert covering_ranges([], limit=3) == []


def test_more_values_than_ranges_are_cut_at_the_widest_gaps():
    values = [1, 2, 3, 100, 101, 500, 1000, 1001, 1002]
    assert covering_ranges(values, limit=3) == [(1, 101), (500, 500), (1000, 1002)]
    assert covering_ranges(values, limit=1) == [(1, 1002)]
    days = [date(2026, 11, d) for d in (1, 2, 3, 20, 21)]
    assert covering_ranges(days, limit=2) == [(date(2026, 11, 1), date(2026, 11, 3)), (date(2026, 11, 20), date(2026, 11, 21))]


def test_every_value_lies_in_exactly_one_range():
    values = [(i * 7919) % 10_007 for i in range(500)]
    ranges = covering_ranges(values, limit=32)
    assert len(ranges) == 32
    assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:], strict=False))
    assert all(sum(low <= v <= high for low, high in ranges) == 1 for v in values)


def test_strings_are_cut_into_runs_of_equal_counts():
    assert covering_ranges(["d", "a", "e", "b", "c"], limit=2) == [("a", "c"), ("d", "e")]


def test_a_limit_below_one_is_refused():
    with pytest.raises(ValueError, match="limit=0"):
        covering_ranges([1], limit=0)


def test_literals_of_each_type():
    assert sql_literal(42) == "42"
    assert sql_literal(Decimal("12.50")) == "12.50BD"
    assert sql_literal(Decimal("1E+2")) == "100BD"
    assert sql_literal(date(2026, 11, 3)) == "DATE '2026-11-03'"
    # A naive timestamp is UTC (the ETL's time values are), exact to the microsecond.
    assert sql_literal(datetime(2026, 11, 3, 4, 5, 6, 7)) == "TIMESTAMP_MICROS(1793678706000007)"
    assert sql_literal(datetime(2026, 11, 3, 4, 5, 6, 7, tzinfo=UTC)) == "TIMESTAMP_MICROS(1793678706000007)"
    assert sql_literal(datetime(1970, 1, 1, tzinfo=UTC)) == "TIMESTAMP_MICROS(0)"
    assert sql_literal("it's a \\ path") == "'it\\'s a \\\\ path'"


def test_booleans_and_floats_have_no_ranges():
    assert not rangeable(True) and not rangeable(1.5) and rangeable(3) and rangeable("x")
    with pytest.raises(ValueError, match=r"1\.5 \(float\) has no range literal"):
        sql_literal(1.5)
    with pytest.raises(ValueError, match="True"):
        sql_literal(True)


def test_the_condition_names_points_and_ranges():
    assert range_condition("t.id", [(3, 3), (10, 20)]) == "(t.id = 3 OR (t.id >= 10 AND t.id <= 20))"
    assert range_condition("id", []) == "FALSE"


def test_a_null_among_the_values_keeps_the_rows_where_the_column_is_null():
    assert range_condition("t.grp", [(3, 3)], nulls=True) == "(t.grp = 3 OR t.grp IS NULL)"
    assert range_condition("grp", [], nulls=True) == "(grp IS NULL)"
