"""Property: pruning never drops a file that holds a matching row.

Random rows spread over random files, random predicates (=, !=, <, <=, >, >=, IN, NOT IN,
IS NULL, NOT NULL, STARTS WITH, AND, OR, NOT, and lookups of user_ids over a time range, which
probe the hour-pair filter); some entries lack a column's statistics, as an
entry written before that column was added does. The reference evaluates each predicate on each
row with SQL's three-valued logic: a row matches only when the predicate is TRUE.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyiceberg import expressions as E
from pyiceberg.schema import Schema
from pyiceberg.types import DoubleType, LongType, NestedField, StringType, TimestamptzType

from lakeops.zonemap.bloom import BloomFilter
from lakeops.zonemap.entry import ColumnStats, ZonemapEntry
from lakeops.zonemap.hour_pairs import HOUR_US, pair_keys
from lakeops.zonemap.prune import may_match

SCHEMA = Schema(
    NestedField(1, "user_id", LongType(), required=False),
    NestedField(2, "country", StringType(), required=False),
    NestedField(3, "score", DoubleType(), required=False),
    NestedField(4, "event_time", TimestamptzType(), required=False),
)
COLUMNS = {"user_id": 1, "country": 2, "score": 3, "event_time": 4}
VALUES = {
    "user_id": st.integers(-20, 60),
    "country": st.sampled_from(["", "BR", "DE", "DEU", "FR", "GB", "US", "USA"]),
    "score": st.floats(-5, 5, allow_nan=False, width=32),
    "event_time": st.integers(-HOUR_US, 5 * HOUR_US),
}


def _row() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({c: st.one_of(st.none(), s) for c, s in VALUES.items()})


def _leaf(draw: Any) -> E.BooleanExpression:
    column = draw(st.sampled_from(list(COLUMNS)))
    kind = draw(st.sampled_from(["=", "!=", "<", "<=", ">", ">=", "in", "not in", "null", "not null", "starts"]))
    value = draw(VALUES[column])
    if kind == "null":
        return E.IsNull(column)
    if kind == "not null":
        return E.NotNull(column)
    if kind in ("in", "not in"):
        values = draw(st.lists(VALUES[column], min_size=1, max_size=4))
        return E.In(column, values) if kind == "in" else E.NotIn(column, values)
    if kind == "starts":
        return E.StartsWith("country", draw(st.sampled_from(["", "D", "DE", "US", "X"])))
    return {"=": E.EqualTo, "!=": E.NotEqualTo, "<": E.LessThan, "<=": E.LessThanOrEqual,
            ">": E.GreaterThan, ">=": E.GreaterThanOrEqual}[kind](column, value)


@st.composite
def predicates(draw: Any, depth: int = 3) -> E.BooleanExpression:
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return _leaf(draw)
    op = draw(st.sampled_from(["and", "or", "not"]))
    if op == "not":
        return E.Not(draw(predicates(depth - 1)))
    left, right = draw(predicates(depth - 1)), draw(predicates(depth - 1))
    return E.And(left, right) if op == "and" else E.Or(left, right)


FEW_USERS = st.integers(0, 3)
"""Users of the lookup tests: few, so a lookup often finds its user in a file, at some hour."""


def _few_users_row() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"user_id": st.one_of(st.none(), FEW_USERS),
                                  "country": st.one_of(st.none(), st.sampled_from(["DE", "FR"])), "score": st.none(),
                                  "event_time": st.one_of(st.none(), VALUES["event_time"])})


@st.composite
def lookups(draw: Any) -> E.BooleanExpression:
    """user_id = v (or IN) over a time range bounded on both sides, sometimes with another conjunct; or
    the same lookup of a country, a column of a type filters take that has no filter."""
    column, values = draw(st.sampled_from([("user_id", FEW_USERS), ("country", st.sampled_from(["DE", "FR"]))]))
    looked_up = draw(st.lists(values, min_size=1, max_size=3))
    lookup = E.EqualTo(column, looked_up[0]) if len(looked_up) == 1 else E.In(column, looked_up)
    start, end = sorted(draw(st.lists(VALUES["event_time"], min_size=2, max_size=2)))
    low = (E.GreaterThanOrEqual if draw(st.booleans()) else E.GreaterThan)("event_time", start)
    high = (E.LessThan if draw(st.booleans()) else E.LessThanOrEqual)("event_time", end)
    found = E.And(lookup, E.And(low, high))
    return E.And(found, draw(predicates(1))) if draw(st.booleans()) else found


def evaluate(expr: E.BooleanExpression, row: dict[str, Any]) -> bool | None:
    """SQL three-valued logic; None is UNKNOWN."""
    if isinstance(expr, E.And):
        a, b = evaluate(expr.left, row), evaluate(expr.right, row)
        return False if a is False or b is False else (None if a is None or b is None else True)
    if isinstance(expr, E.Or):
        a, b = evaluate(expr.left, row), evaluate(expr.right, row)
        return True if a is True or b is True else (None if a is None or b is None else False)
    if isinstance(expr, E.Not):
        inner = evaluate(expr.child, row)
        return None if inner is None else not inner
    value = row[expr.term.name]
    if isinstance(expr, E.IsNull):
        return value is None
    if isinstance(expr, E.NotNull):
        return value is not None
    if value is None:
        return None
    if isinstance(expr, (E.In, E.NotIn)):
        found = value in {lit.value for lit in expr.literals}
        return found if isinstance(expr, E.In) else not found
    target = expr.literal.value
    if isinstance(expr, E.StartsWith):
        return value.startswith(target)
    return {E.EqualTo: value == target, E.NotEqualTo: value != target, E.LessThan: value < target,
            E.LessThanOrEqual: value <= target, E.GreaterThan: value > target,
            E.GreaterThanOrEqual: value >= target}[type(expr)]


def entry_for(path: str, rows: list[dict[str, Any]], without: set[str]) -> ZonemapEntry:
    columns = {}
    for name, field_id in COLUMNS.items():
        if name in without:
            continue
        present = [r.get(name) for r in rows if r.get(name) is not None]
        columns[field_id] = ColumnStats(min(present, default=None), max(present, default=None),
                                        sum(r.get(name) is None for r in rows))
    blooms = {} if "user_id" in without else {1: BloomFilter.build((r["user_id"] for r in rows), 0.01)}
    if not {"user_id", "event_time"} & without:  # the hour pairs, as zonemap.bloom_hour_column: event_time keeps them
        blooms[4] = BloomFilter.build(pair_keys({1: [r["user_id"] for r in rows]}, [r.get("event_time") for r in rows]), 0.01)
    return ZonemapEntry(path, snapshot_id=1, record_count=len(rows), file_size=100, columns=columns, blooms=blooms)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files=st.lists(st.tuples(st.lists(_row(), min_size=1, max_size=12),
                             st.sets(st.sampled_from(list(COLUMNS)), max_size=2)), min_size=1, max_size=6),
    predicate=st.one_of(predicates(), lookups()),
)
def test_pruning_keeps_every_file_with_a_matching_row(files, predicate):
    for i, (rows, without) in enumerate(files):
        entry = entry_for(f"f{i}", rows, without)
        if any(evaluate(predicate, row) is True for row in rows):
            assert may_match(entry, predicate, SCHEMA), (predicate, rows, entry)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=st.lists(st.lists(_few_users_row(), min_size=1, max_size=12), min_size=1, max_size=6), predicate=lookups())
def test_hour_pair_lookups_keep_every_file_with_a_matching_row(files, predicate):
    for i, rows in enumerate(files):
        entry = entry_for(f"f{i}", rows, set())
        if any(evaluate(predicate, row) is True for row in rows):
            assert may_match(entry, predicate, SCHEMA), (predicate, rows, entry)


def test_pruning_skips_files_the_statistics_rule_out():
    rows = [{"user_id": u, "country": "DE", "score": 1.0} for u in range(10, 20)]
    entry = entry_for("f", rows, set())
    assert not may_match(entry, E.EqualTo("user_id", 50), SCHEMA)
    assert not may_match(entry, E.LessThan("user_id", 10), SCHEMA)
    assert not may_match(entry, E.EqualTo("country", "US"), SCHEMA)
    assert not may_match(entry, E.IsNull("country"), SCHEMA)
    assert not may_match(entry, E.Not(E.EqualTo("country", "DE")), SCHEMA)
    assert not may_match(entry, E.And(E.GreaterThan("user_id", 12), E.StartsWith("country", "F")), SCHEMA)
    assert may_match(entry, E.Or(E.EqualTo("user_id", 50), E.EqualTo("user_id", 15)), SCHEMA)


def test_bloom_filter_prunes_values_inside_the_range_but_absent():
    rows = [{"user_id": u, "country": None, "score": None} for u in (10, 20, 30, 40)]
    entry = entry_for("f", rows, set())
    absent = [v for v in range(11, 40) if v not in (20, 30) and not entry.blooms[1].might_contain(v)]
    assert len(absent) >= 20, "a 1% Bloom filter rejects nearly every absent value"
    assert not may_match(entry, E.EqualTo("user_id", absent[0]), SCHEMA)
    assert may_match(entry, E.EqualTo("user_id", 30), SCHEMA)


def test_entry_written_before_a_column_was_added_never_prunes_on_it():
    rows = [{"user_id": 1, "country": "DE", "score": 1.0}]
    entry = entry_for("f", rows, {"score"})
    assert may_match(entry, E.GreaterThan("score", 100.0), SCHEMA)
    assert not may_match(entry, E.GreaterThan("user_id", 100), SCHEMA)


def test_hour_pairs_skip_a_file_that_holds_the_user_only_at_other_hours():
    # A streaming file spanning 1:30 to 4:10 holds user 7 at 4:10 only: min/max and the user_id filter keep it for 1:00 to
    # 3:00; the hour pairs do not. An entry without them (written before bloom_hour_column was set) is kept.
    rows = [{"user_id": u, "country": c, "score": None, "event_time": t}
            for u, c, t in ((7, None, 4 * HOUR_US + 600_000_000), (8, "DE", HOUR_US + 1_800_000_000), (9, None, 2 * HOUR_US))]
    entry = entry_for("f", rows, set())
    window = E.And(E.GreaterThanOrEqual("event_time", HOUR_US), E.LessThan("event_time", 3 * HOUR_US))
    assert not may_match(entry, E.And(E.EqualTo("user_id", 7), window), SCHEMA)
    assert may_match(entry, E.And(E.EqualTo("user_id", 8), window), SCHEMA)
    assert may_match(entry, E.And(E.In("user_id", [7, 9]), window), SCHEMA)
    assert may_match(entry, E.EqualTo("user_id", 7), SCHEMA), "no time range: the pairs are not probed"
    assert may_match(entry, E.Or(E.EqualTo("user_id", 7), window), SCHEMA)
    assert may_match(entry, E.And(E.EqualTo("country", "DE"), window), SCHEMA), "country has no filter: never paired"
    without = entry_for("f", rows, {"event_time"})
    assert may_match(without, E.And(E.EqualTo("user_id", 7), window), SCHEMA)
