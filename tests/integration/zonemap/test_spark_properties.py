"""The same property on real Spark + Iceberg, few examples: random batches (some without their micro
zonemap), schema changes, a compaction by rewrite_data_files or an overwrite, consolidation at a
random point, random predicates; both read paths return the full scan's rows every time."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyiceberg import expressions as E

from lakeops.config import ZonemapConfig
from lakeops.spark.zonemap_reads import pruned_frame
from lakeops.zonemap.consolidate import reconcile
from lakeops.zonemap.read_plan import ARROW_MAX_BYTES
from lakeops.zonemap.reads import read_pruned_arrow
from lakeops.zonemap.sql import to_spark_sql
from tests.integration.zonemap.conftest import COUNTRIES, TYPES, event_rows, make_events_table

pytestmark = pytest.mark.spark
_runs = itertools.count()


def leaves(has_score: bool) -> st.SearchStrategy[E.BooleanExpression]:
    options = [
        st.integers(0, 120).map(lambda v: E.EqualTo("user_id", v)),
        st.integers(0, 120).map(lambda v: E.LessThan("user_id", v)),
        st.integers(0, 120).map(lambda v: E.GreaterThanOrEqual("user_id", v)),
        st.lists(st.sampled_from(COUNTRIES + ["ZZ"]), min_size=1, max_size=3).map(lambda v: E.In("nation", v)),
        st.just(E.IsNull("nation")),
        st.sampled_from(TYPES).map(lambda v: E.LessThanOrEqual("event_type", v)),
    ]
    if has_score:
        options += [st.integers(-5, 2**31 + 5).map(lambda v: E.GreaterThan("score", v)), st.just(E.IsNull("score"))]
    return st.one_of(options)


def predicates(has_score: bool) -> st.SearchStrategy[E.BooleanExpression]:
    return st.recursive(leaves(has_score), lambda inner: st.one_of(
        st.tuples(inner, inner).map(lambda p: E.And(*p)), st.tuples(inner, inner).map(lambda p: E.Or(*p)),
        inner.map(E.Not)), max_leaves=4)


@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_pruned_reads_equal_full_scans_on_spark(spark, tmp_path_factory, data):
    events = make_events_table(spark, tmp_path_factory.mktemp(f"prop{next(_runs)}"))
    events.spec = SimpleNamespace(zonemap=ZonemapConfig(columns=("user_id", "country", "nation", "event_type", "score"),
                                                        bloom_columns=("user_id",)))
    spark.sql(f"ALTER TABLE {events.name} RENAME COLUMN country TO nation")
    has_score = False
    for batch in range(data.draw(st.integers(2, 4), label="batches")):
        rows = [dict(r, nation=r["country"], score=(batch * 10 + i if has_score else None))
                for i, r in enumerate(event_rows(30, 100 * batch + data.draw(st.integers(0, 9)), users=120))]
        events.append(rows, zonemap=data.draw(st.booleans(), label="micro zonemap written"))
        steps = ["none", "add score", "widen score", "consolidate", "compact", "overwrite"]
        step = data.draw(st.sampled_from(steps), label="then")
        if step == "add score" and not has_score:
            spark.sql(f"ALTER TABLE {events.name} ADD COLUMNS (score INT)")  # older entries have no stats on it
            has_score = True
        elif step == "widen score" and has_score:
            spark.sql(f"ALTER TABLE {events.name} ALTER COLUMN score TYPE BIGINT")
        elif step == "consolidate":
            reconcile(events.load(), events.spec)
        elif step == "compact":
            spark.sql(f"CALL {events.config.catalog.name}.system.rewrite_data_files(table => '{events.name}', "
                      "options => map('rewrite-all', 'true'))")
        elif step == "overwrite":
            spark.sql(f"INSERT OVERWRITE {events.name} SELECT * FROM {events.name} WHERE user_id % 2 = 0")
    table = events.load()
    for predicate in data.draw(st.lists(predicates(has_score), min_size=2, max_size=2), label="predicates"):
        full = sorted(table.scan(row_filter=predicate, selected_fields=("event_id",)).to_arrow().column("event_id").to_pylist())
        pruned = read_pruned_arrow(table, predicate, selected_fields=("event_id",))
        assert sorted(pruned.rows.column("event_id").to_pylist()) == full
        driver = data.draw(st.sampled_from([0, ARROW_MAX_BYTES]), label="arrow_max_bytes")
        with pruned_frame(spark, events.name, table, predicate, arrow_max_bytes=driver) as read:
            got = sorted(r[0] for r in read.frame.select("event_id").collect())
            assert got == events.ids(to_spark_sql(predicate, table.schema()))
