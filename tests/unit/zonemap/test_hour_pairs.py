"""The hour-pair keys a lookup probes (lakeops.zonemap.hour_pairs), against literal predicates."""

from __future__ import annotations

from pyiceberg import expressions as E
from pyiceberg.expressions.visitors import bind, rewrite_not
from pyiceberg.schema import Schema
from pyiceberg.types import DoubleType, LongType, NestedField, StringType, TimestampType

from lakeops.zonemap.hour_pairs import HOUR_US, MAX_PROBES, hour_field_ids, lookup_keys, pair_key, pair_keys

SCHEMA = Schema(NestedField(1, "user_id", LongType()), NestedField(2, "country", StringType()),
                NestedField(3, "event_time", TimestampType()), NestedField(4, "score", DoubleType()))
WINDOW = E.And(E.GreaterThanOrEqual("event_time", "1970-01-01T12:00:00"), E.LessThan("event_time", "1970-01-01T14:00:00"))


def keys(predicate: E.BooleanExpression) -> list[tuple[int, list[str]]]:
    return lookup_keys(bind(SCHEMA, rewrite_not(predicate), case_sensitive=True), 3)


def test_a_file_keeps_each_value_with_the_hours_it_occurs_in():
    found = pair_keys({1: [7, 7, 8, None]}, [12 * HOUR_US + 5, 13 * HOUR_US, None, 12 * HOUR_US])
    assert found == {"1:12:7", "1:13:7"}
    assert pair_key(1, -1, "x") == "1:-1:x"
    assert pair_keys({1: [7]}, [-1]) == {"1:-1:7"}, "before the epoch: the hour below, as floor division gives"


def test_a_lookup_over_two_hours_probes_each_value_in_each_hour():
    assert keys(E.And(E.EqualTo("user_id", 7), WINDOW)) == [(1, ["1:12:7", "1:13:7"])]
    assert keys(E.And(WINDOW, E.In("user_id", [8, 7]))) == [(1, ["1:12:7", "1:13:7", "1:12:8", "1:13:8"])]


def test_bounds_are_exact_at_the_hour_edges():
    inclusive = E.And(E.GreaterThan("event_time", 12 * HOUR_US - 1), E.LessThanOrEqual("event_time", 14 * HOUR_US))
    assert keys(E.And(E.EqualTo("user_id", 7), inclusive)) == [(1, ["1:12:7", "1:13:7", "1:14:7"])]
    assert keys(E.And(E.EqualTo("user_id", 7), E.EqualTo("event_time", 12 * HOUR_US))) == [(1, ["1:12:7"])]


def test_each_looked_up_column_is_its_own_group():
    both = E.And(E.And(E.EqualTo("user_id", 7), E.EqualTo("country", "DE")), WINDOW)
    assert keys(both) == [(1, ["1:12:7", "1:13:7"]), (2, ["2:12:DE", "2:13:DE"])]


def test_no_keys_without_both_bounds_a_conjunction_or_a_narrow_enough_range():
    assert keys(E.EqualTo("user_id", 7)) == []
    assert keys(E.And(E.EqualTo("user_id", 7), E.GreaterThanOrEqual("event_time", 0))) == []
    empty = E.And(E.GreaterThan("event_time", 0), E.LessThan("event_time", 0))
    assert keys(E.And(E.EqualTo("user_id", 7), empty)) == [], "an empty range probes nothing"
    assert keys(E.Or(E.EqualTo("user_id", 7), WINDOW)) == []
    assert keys(E.And(E.NotEqualTo("user_id", 7), WINDOW)) == []
    assert keys(E.And(E.EqualTo("score", 1.0), WINDOW)) == [], "doubles have no filter"
    wide = E.And(E.GreaterThanOrEqual("event_time", 0), E.LessThan("event_time", (MAX_PROBES + 1) * HOUR_US))
    assert keys(E.And(E.EqualTo("user_id", 7), wide)) == []


def test_only_timestamp_columns_hold_hour_pairs():
    assert hour_field_ids([1, 2, 3, 99], SCHEMA) == [3], "99: a dropped column"
