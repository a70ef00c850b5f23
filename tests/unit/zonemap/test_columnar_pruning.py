"""Property: the columnar evaluation (lakeops.zonemap.evaluate over lakeops.zonemap.columns) answers
exactly as the per-entry rules of lakeops.zonemap.prune, whose soundness test_prune_properties
checks against the rows; entries go through the stored Parquet layout on the way, so decoding is
checked too."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyiceberg import expressions as E
from pyiceberg.types import IntegerType, LongType

from lakeops.zonemap.columns import concat, from_stored
from lakeops.zonemap.entry import ColumnStats, ZonemapEntry
from lakeops.zonemap.evaluate import may_match_all
from lakeops.zonemap.prune import may_match
from lakeops.zonemap.store import to_arrow, types_for
from tests.unit.zonemap.test_prune_properties import COLUMNS, SCHEMA, _few_users_row, _row, entry_for, lookups, predicates


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files=st.lists(st.tuples(st.lists(_row(), min_size=1, max_size=8),
                             st.sets(st.sampled_from(list(COLUMNS)), max_size=2)), min_size=1, max_size=6),
    predicate=st.one_of(predicates(), lookups()),
)
def test_columnar_answers_as_the_entry_rules(files, predicate):
    entries = [entry_for(f"f{i}", rows, without) for i, (rows, without) in enumerate(files)]
    index = from_stored(to_arrow(entries, types_for(SCHEMA)), types_for(SCHEMA))
    expected = [may_match(e, predicate, SCHEMA) for e in entries]
    assert may_match_all(index, predicate, SCHEMA).tolist() == expected, predicate


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=st.lists(st.lists(_few_users_row(), min_size=1, max_size=8), min_size=1, max_size=6), predicate=lookups())
def test_columnar_hour_pair_lookups_answer_as_the_entry_rules(files, predicate):
    entries = [entry_for(f"f{i}", rows, set()) for i, rows in enumerate(files)]
    index = from_stored(to_arrow(entries, types_for(SCHEMA)), types_for(SCHEMA))
    expected = [may_match(e, predicate, SCHEMA) for e in entries]
    assert may_match_all(index, predicate, SCHEMA).tolist() == expected, predicate


def test_widened_bounds_and_missing_columns_decode():
    old = to_arrow([ZonemapEntry("a", 1, 10, 1, columns={1: ColumnStats(5, 9, 0)})], {1: IntegerType()})
    new = to_arrow([ZonemapEntry("b", 2, 10, 1, columns={1: ColumnStats(2**40, 2**41, 0)})], {1: LongType()})
    both = pa.concat_tables([old, new])
    index = concat([from_stored(both, types_for(SCHEMA)), from_stored(to_arrow([ZonemapEntry("c", 3, 1, 1)], {}), {})])
    assert index.stats[1].lower.to_pylist() == [5, 2**40, None]
    assert may_match_all(index, E.EqualTo("user_id", 7), SCHEMA).tolist() == [True, False, True]
    assert may_match_all(index, E.GreaterThan("user_id", 2**40), SCHEMA).tolist() == [False, True, True]


def test_min_max_alone_ignores_the_bloom_filters():
    rows = [{"user_id": u, "country": None, "score": None} for u in (10, 20, 30, 40)]
    entry = entry_for("f", rows, set())
    absent = next(v for v in range(11, 40) if not entry.blooms[1].might_contain(v))
    index = from_stored(to_arrow([entry], types_for(SCHEMA)), types_for(SCHEMA))
    assert may_match_all(index, E.EqualTo("user_id", absent), SCHEMA).tolist() == [False]
    assert may_match_all(index, E.EqualTo("user_id", absent), SCHEMA, use_blooms=False).tolist() == [True]
