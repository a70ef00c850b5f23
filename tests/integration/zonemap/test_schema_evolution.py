"""Schema evolution under a zonemap written before it: int -> long and float -> double widening,
a rename (stats keyed by field id), a dropped column (ignored) and an added column (no stats, never
prunes). Both read paths return the full scan's rows for every predicate."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from pyiceberg import expressions as E

from lakeops.config import ZonemapConfig
from lakeops.spark.zonemap_reads import pruned_frame
from lakeops.zonemap.consolidate import reconcile
from lakeops.zonemap.reads import read_pruned_arrow
from lakeops.zonemap.sql import to_spark_sql
from tests.integration.zonemap.conftest import event_rows, make_events_table

pytestmark = pytest.mark.spark
BIG = 3_000_000_000  # beyond int: only storable once n is a long


@pytest.fixture(scope="module")
def evolved(spark, tmp_path_factory):
    events = make_events_table(spark, tmp_path_factory.mktemp("evolution"))
    spark.sql(f"ALTER TABLE {events.name} ADD COLUMNS (n INT, x FLOAT, tag STRING)")
    # The config names columns; columns added by ALTER are not in the built-in schema, so the spec is built here.
    events.spec = SimpleNamespace(zonemap=ZonemapConfig(columns=("user_id", "country", "nation", "n", "x", "tag", "late"),
                                                        bloom_columns=("n",)))
    events.append([dict(r, n=i, x=i / 100, tag=f"t{i}") for i, r in enumerate(event_rows(60, 1))])
    for statement in ("ALTER COLUMN n TYPE BIGINT", "ALTER COLUMN x TYPE DOUBLE", "RENAME COLUMN country TO nation",
                      "DROP COLUMN tag", "ADD COLUMNS (late INT)"):
        spark.sql(f"ALTER TABLE {events.name} {statement}")
    events.append([dict(r, n=BIG + i, x=10 + i / 7, nation=r["country"], late=i % 5) for i, r in enumerate(event_rows(60, 2))])
    events.append([dict(r, n=BIG + 100 + i, x=20.0, nation="ZZ", late=None) for i, r in enumerate(event_rows(30, 3))],
                  zonemap=False)
    return events


CASES = [
    (E.EqualTo("n", 5), 1), (E.GreaterThan("n", BIG + 50), 2), (E.EqualTo("n", BIG + 200), 0),
    (E.LessThan("x", 0.5), 1), (E.GreaterThanOrEqual("x", 20.0), 1), (E.EqualTo("nation", "ZZ"), 1),
    (E.EqualTo("late", 3), None), (E.IsNull("late"), None), (E.Or(E.EqualTo("n", 7), E.EqualTo("nation", "ZZ")), 2),
    (E.Not(E.GreaterThanOrEqual("n", 10)), 1),
]


@pytest.mark.parametrize("predicate,expected_files", CASES, ids=[str(c[0]) for c in CASES])
def test_pruned_reads_match_full_scans_across_schema_changes(evolved, spark, predicate, expected_files):
    reconcile(evolved.load(), evolved.spec)  # indexes the file committed without a micro zonemap
    table = evolved.load()
    full = sorted(table.scan(row_filter=predicate, selected_fields=("event_id",)).to_arrow().column("event_id").to_pylist())
    pruned = read_pruned_arrow(table, predicate, selected_fields=("event_id",))
    assert sorted(pruned.rows.column("event_id").to_pylist()) == full
    with pruned_frame(spark, evolved.name, table, predicate) as read:
        got = sorted(r[0] for r in read.frame.select("event_id").collect())
        assert got == evolved.ids(to_spark_sql(predicate, table.schema()))
    if expected_files is not None:
        assert pruned.files_read == expected_files
    else:  # the first file has no stats for `late` (added after it was indexed): never pruned on it
        assert pruned.files_read >= 1 + (predicate == E.IsNull("late"))
