"""Models a user declares in the config, on real Spark + Iceberg: a changelog-sourced aggregate over a
merge-on-read source under random histories (property test) and with equality delete files, and a join of
two sources with late data on one side. After every incremental run the model equals its recompute from
scratch."""

from __future__ import annotations

import itertools
import re
import time
from datetime import UTC, date, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyspark.sql import functions as F

from lakeops.catalog import load_catalog
from lakeops.etl.inputs import plan_from_catalog
from lakeops.exceptions import ConfigError
from lakeops.spark.etl import run_etl
from lakeops.watermark import current_watermarks
from tests.integration.equality_deletes import commit_equality_delete
from tests.integration.etl.helpers import create_tables, from_scratch, sorted_rows
from tests.integration.etl.user_models import user_models_config

pytestmark = pytest.mark.spark
_examples = itertools.count()
MOR = ("'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read'")


def _run(spark, config, model, **kwargs):
    catalog = load_catalog(config.catalog)
    return run_etl(spark, catalog, config, plan_from_catalog(catalog, config, model, **kwargs))


def _equal_to_scratch(spark, config, model):
    """Whether the model's table holds what the model gives over its sources' current state, taken in the table's
    column types (as a write casts them: a TIMESTAMP the SELECT yields into a TIMESTAMP_NTZ column, say)."""
    table = config.qualified(config.model(model).table_name)
    spark.catalog.refreshTable(table)
    fields = spark.table(table).schema.fields
    columns = [f.name for f in fields]
    scratch = from_scratch(spark, config, model).select(*[F.col(f.name).cast(f.dataType) for f in fields])
    return sorted_rows(spark.table(table), columns) == sorted_rows(scratch, columns)


def _ts(day: int, hour: int = 0) -> datetime:
    return datetime(2026, 11, day, hour)


# One commit of the random history: (kind, ids, group or None, day).
commits = st.tuples(st.sampled_from(["insert", "update", "delete", "compact"]),
                    st.lists(st.integers(0, 11), min_size=1, max_size=4, unique=True),
                    st.one_of(st.none(), st.integers(0, 2)), st.integers(1, 2))


@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck))
@given(version=st.sampled_from([2, 3]), history=st.lists(st.lists(commits, min_size=1, max_size=3), min_size=2, max_size=3))
def test_changelog_model_equals_a_recompute_after_every_run(spark, tmp_path_factory, version, history):
    """Format 2 writes position delete files, format 3 deletion vectors; ids repeat across the commits of a
    run's range (several changes of one key, deletes of rows added in the same range), a group may be NULL, and a
    compaction may fall between runs."""
    config, _ = user_models_config(spark, tmp_path_factory.mktemp(f"changes{next(_examples)}"))
    create_tables(spark, config, "items")
    items = config.qualified("items")
    spark.sql(f"ALTER TABLE {items} SET TBLPROPERTIES ('format-version'='{version}', {MOR})")
    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES (100, 0, 1, TIMESTAMP '2026-11-01 05:00:00'), "
              "(101, 1, 2, TIMESTAMP '2026-11-02 06:00:00')")
    assert _run(spark, config, "items_by_group").mode == "full"
    for commits_of_run in history:
        for kind, ids, grp, day in commits_of_run:
            in_ids, group = ", ".join(map(str, ids)), "NULL" if grp is None else grp
            if kind == "insert":
                present = {r.id for r in spark.table(items).where(f"id IN ({in_ids})").collect()}
                values = ", ".join(f"({i}, {group}, {i}, TIMESTAMP '2026-11-0{day} 0{i % 10}:00:00')"
                                   for i in ids if i not in present)
                if values:
                    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES {values}")
            elif kind == "update":
                spark.sql(f"UPDATE {items} SET v = v + 10, grp = {group} WHERE id IN ({in_ids}, 100)")
            elif kind == "delete":
                spark.sql(f"DELETE FROM {items} WHERE id IN ({in_ids})")
            else:
                spark.sql(f"CALL {config.catalog.name}.system.rewrite_data_files(table => '{items}', "
                          "options => map('delete-file-threshold', '1', 'min-input-files', '1'))")
        result = _run(spark, config, "items_by_group")
        assert result.mode in ("incremental", "noop"), result
        assert _equal_to_scratch(spark, config, "items_by_group")
    assert _run(spark, config, "items_by_group").mode == "noop"


def test_join_of_two_sources_with_late_data_on_one_side(catalog_spark, tmp_path):
    spark = catalog_spark
    config, _ = user_models_config(spark, tmp_path)
    create_tables(spark, config, "impressions", "clicks")
    impressions, clicks = config.qualified("impressions"), config.qualified("clicks")

    def add(table, rows):
        spark.createDataFrame(rows, "ad_id bigint, ts timestamp").writeTo(table).append()

    add(impressions, [(1, _ts(20, 9)), (1, _ts(20, 10)), (2, _ts(20, 11)), (1, _ts(21, 9))])
    add(clicks, [(1, _ts(20, 9))])
    assert _run(spark, config, "ad_day").mode == "full"
    # Late clicks for the 20th (one side only), and a new day of impressions on the other.
    add(clicks, [(1, _ts(20, 23)), (2, _ts(20, 12))])
    add(impressions, [(3, _ts(22, 8))])
    result = _run(spark, config, "ad_day")
    assert (result.mode, result.status) == ("incremental", "committed")
    assert _equal_to_scratch(spark, config, "ad_day")
    got = sorted_rows(spark.table(config.qualified("ad_day")), ["ad_id", "day", "impressions", "clicks"])
    assert got == [(1, _ts(20), 2, 2), (1, _ts(21), 1, 0), (2, _ts(20), 1, 1), (3, _ts(22), 1, 0)]
    catalog = load_catalog(config.catalog)
    marks = current_watermarks(catalog.load_table(config.identifier("ad_day")))
    assert marks == {name: catalog.load_table(config.identifier(name)).current_snapshot().snapshot_id
                     for name in ("impressions", "clicks")}
    # Only the clicks side moves: each source keeps its own watermark.
    add(clicks, [(1, _ts(21, 7))])
    assert _run(spark, config, "ad_day").status == "committed"
    assert _equal_to_scratch(spark, config, "ad_day")
    after = current_watermarks(load_catalog(config.catalog).load_table(config.identifier("ad_day")))
    assert after["impressions"] == marks["impressions"] and after["clicks"] != marks["clicks"]


def test_a_model_over_another_models_table_follows_its_merges_and_backfills(spark, tmp_path):
    """day_totals reads items_by_group's table as a changelog source: lakeops' own copy-on-write MERGE and a backfill's
    overwrite of a date rewrite its files between runs. After each run of both, day_totals equals its recompute."""
    config, _ = user_models_config(spark, tmp_path)
    create_tables(spark, config, "items")
    items = config.qualified("items")
    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES (1, 0, 1, TIMESTAMP '2026-11-01 05:00:00'), "
              "(2, 1, 2, TIMESTAMP '2026-11-01 06:00:00'), (3, 1, 3, TIMESTAMP '2026-11-02 06:00:00'), "
              "(4, 2, 4, TIMESTAMP '2026-11-03 07:00:00')")
    assert [_run(spark, config, m).mode for m in ("items_by_group", "day_totals")] == ["full", "full"]
    spark.sql(f"UPDATE {items} SET v = 100 WHERE id = 2")
    spark.sql(f"DELETE FROM {items} WHERE id = 4")
    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES (5, 3, 7, TIMESTAMP '2026-11-02 09:00:00')")
    assert [_run(spark, config, m).mode for m in ("items_by_group", "day_totals")] == ["incremental", "incremental"]
    assert _equal_to_scratch(spark, config, "day_totals")
    spark.sql(f"UPDATE {items} SET v = 5 WHERE id = 3")
    assert _run(spark, config, "items_by_group", backfill_dates=(date(2026, 11, 2),)).mode == "backfill"
    result = _run(spark, config, "day_totals")
    assert (result.mode, result.status) == ("incremental", "committed")
    assert _equal_to_scratch(spark, config, "day_totals")
    days = config.qualified("day_totals")
    assert sorted((r.day.day, r.total, r.groups) for r in spark.table(days).collect()) == [(1, 101, 2), (2, 12, 2)]


def test_a_change_touching_most_of_the_source_recomputes_in_full(spark, tmp_path, monkeypatch):
    """With full_recompute_share 0.5: a change to one of ten day files stays incremental; an UPDATE of every
    row (every file read at both snapshots) runs as a full recompute, says why, and moves the watermark. That
    is known from the metadata: Iceberg's Java planning of the changed files runs only for the incremental run."""
    from lakeops.spark import etl_incremental

    planned = []
    changed_between = etl_incremental.changed_between
    monkeypatch.setattr(etl_incremental, "changed_between", lambda *a: planned.append(a[1:]) or changed_between(*a))
    config, _ = user_models_config(spark, tmp_path, full_recompute_share=0.5)
    create_tables(spark, config, "items")
    items = config.qualified("items")
    spark.sql(f"ALTER TABLE {items} SET TBLPROPERTIES ('format-version'='2', {MOR})")
    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES " + ", ".join(
        f"({i}, {i % 3}, {i}, TIMESTAMP '2026-11-{1 + i % 10:02d} 0{i % 7}:00:00')" for i in range(40)))
    assert _run(spark, config, "items_by_group").mode == "full"

    spark.sql(f"UPDATE {items} SET v = v + 1 WHERE id = 3")
    narrow = _run(spark, config, "items_by_group")
    assert (narrow.mode, narrow.status) == ("incremental", "committed") and len(planned) == 1
    assert _equal_to_scratch(spark, config, "items_by_group")

    spark.sql(f"UPDATE {items} SET v = v + 100")
    broad = _run(spark, config, "items_by_group")
    assert (broad.mode, broad.status) == ("full", "committed") and len(planned) == 1, broad
    assert "the changes of source items touched files holding" in broad.reason
    assert _equal_to_scratch(spark, config, "items_by_group")
    catalog = load_catalog(config.catalog)
    assert current_watermarks(catalog.load_table(config.identifier("items_by_group"))) == {
        "items": catalog.load_table(config.identifier("items")).current_snapshot().snapshot_id}
    assert _run(spark, config, "items_by_group").mode == "noop"


def test_a_changelog_model_keyed_on_growing_ids_reads_only_the_files_holding_the_changed_ids(spark, tmp_path):
    """A model keyed on an id that grows with time (no period among its recompute columns): the run reads the source
    and the downstream table only in files whose id bounds hold a changed id, and equals its recompute, also when
    more ids changed than ranges are kept (the widest gaps left out)."""
    from benchmarks.common import measure_scans

    config, _ = user_models_config(spark, tmp_path)
    create_tables(spark, config, "items")
    items = config.qualified("items")
    spark.sql(f"ALTER TABLE {items} SET TBLPROPERTIES ('format-version'='2', {MOR})")
    for day in range(1, 11):  # ten day files, ids 10 * day .. 10 * day + 9
        spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES " + ", ".join(
            f"({10 * day + i}, {i % 3}, {i}, TIMESTAMP '2026-11-{day:02d} 0{i % 7}:00:00')" for i in range(10)))
    assert _run(spark, config, "items_current").mode == "full"
    live = spark.sql(f"SELECT count(*) AS n FROM {items}.files").first().n + spark.sql(
        f"SELECT count(*) AS n FROM {config.qualified('items_current')}.files").first().n

    spark.sql(f"UPDATE {items} SET v = -1 WHERE id = 101")  # leaves the model: a delete downstream
    spark.sql(f"UPDATE {items} SET v = v + 5 WHERE id IN (102, 103)")
    spark.sql(f"DELETE FROM {items} WHERE id = 104")
    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES (110, 1, 7, TIMESTAMP '2026-11-10 09:00:00')")
    cost, result = measure_scans(spark, lambda: _run(spark, config, "items_current"))
    assert (result.mode, result.status) == ("incremental", "committed")
    assert _equal_to_scratch(spark, config, "items_current")
    # The changed files at both snapshots (the last day's, its delete files, the new files), then the source and the
    # downstream table where their id bounds hold a changed id: fewer files than the two tables hold, where reading
    # them whole would open every one of them and the diff's on top.
    assert cost.scanned_files < live, (cost, live)

    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES " + ", ".join(
        f"({200 + 3 * i}, 2, {i}, TIMESTAMP '2026-11-11 01:00:00')" for i in range(40)))
    spark.sql(f"UPDATE {items} SET v = v + 1 WHERE id IN (15, 55, 95)")
    assert _run(spark, config, "items_current").mode == "incremental"
    assert _equal_to_scratch(spark, config, "items_current")


def _items_and_visits(spark, tmp_path, models, items_values, visits_values):
    """(config, items, visits): a merge-on-read items table and a visits table with the given VALUES rows, and a first
    run of each model, a full one."""
    config, _ = user_models_config(spark, tmp_path)
    create_tables(spark, config, "items", "visits")
    items, visits = config.qualified("items"), config.qualified("visits")
    spark.sql(f"ALTER TABLE {items} SET TBLPROPERTIES ('format-version'='2', {MOR})")
    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES {items_values}")
    spark.sql(f"INSERT INTO {visits} VALUES {visits_values}")
    assert [_run(spark, config, m).mode for m in models] == ["full"] * len(models)
    return config, items, visits


def test_null_recompute_values_are_recomputed_like_any_other(spark, tmp_path):
    """A NULL group, visitor or day among the affected values: the rows of that NULL are recomputed and replace the
    downstream rows of that NULL (a plain `=` never matches it), through a model recomputed by its key, one recomputed
    by another column, and an append model whose NULL day has no span to confine its reads to."""
    models = ("items_by_group", "items_in_group", "visits_by_day")
    config, items, visits = _items_and_visits(spark, tmp_path, models, "(1, NULL, 1, TIMESTAMP '2026-11-01 05:00:00'), "
                                              "(2, 1, 2, TIMESTAMP '2026-11-01 06:00:00'), "
                                              "(3, NULL, 4, TIMESTAMP '2026-11-02 07:00:00')",
                                              "(NULL, TIMESTAMP '2026-11-01 05:00:00'), (7, NULL), "
                                              "(8, TIMESTAMP '2026-11-02 01:00:00')")

    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES (4, NULL, 8, TIMESTAMP '2026-11-01 09:00:00')")
    spark.sql(f"UPDATE {items} SET v = 16 WHERE id = 1")
    spark.sql(f"INSERT INTO {visits} VALUES (NULL, TIMESTAMP '2026-11-01 06:00:00'), (7, NULL), (NULL, NULL)")
    for model in models:
        result = _run(spark, config, model)
        assert (result.mode, result.status) == ("incremental", "committed"), result
        assert _equal_to_scratch(spark, config, model), model
    by_group = spark.table(config.qualified("items_by_group")).where("grp IS NULL").orderBy("day").collect()
    assert [(r.n, r.total, r.top) for r in by_group] == [(2, 24, 4), (1, 4, 3)]
    in_group = spark.table(config.qualified("items_in_group")).where("grp IS NULL").collect()
    assert sorted((r.id, r.group_total) for r in in_group) == [(1, 28), (3, 28), (4, 28)]
    by_day = spark.table(config.qualified("visits_by_day"))
    assert sorted((r.visitor or 0, str(r.day), r.n) for r in by_day.collect()) == [
        (0, "2026-11-01 00:00:00", 2), (0, "None", 1), (7, "None", 2), (8, "2026-11-02 00:00:00", 1)]


def test_a_column_added_to_the_sources_since_the_watermark(spark, tmp_path):
    """A source that gained a column between two runs (schema evolution by its writer): the changelog model's diff
    and the append model's read of the touched periods take the older rows under the new schema, and each run stays
    incremental and equals its recompute. The append run used to fail on a UNION of the two schemas."""
    models = ("items_by_group", "visits_by_day")
    config, items, visits = _items_and_visits(spark, tmp_path, models, "(1, 1, 1, TIMESTAMP '2026-11-01 05:00:00'), "
                                              "(2, 1, 2, TIMESTAMP '2026-11-01 06:00:00'), "
                                              "(3, 2, 4, TIMESTAMP '2026-11-02 07:00:00')",
                                              "(1, TIMESTAMP '2026-11-01 05:00:00'), (8, TIMESTAMP '2026-11-02 01:00:00')")

    spark.sql(f"ALTER TABLE {items} ADD COLUMN note string")
    spark.sql(f"ALTER TABLE {visits} ADD COLUMN page string")
    spark.sql(f"UPDATE {items} SET v = 16, note = 'x' WHERE id = 1")
    spark.sql(f"INSERT INTO {items} VALUES (4, 2, 8, TIMESTAMP '2026-11-01 09:00:00', 'y')")
    spark.sql(f"INSERT INTO {visits} VALUES (1, TIMESTAMP '2026-11-01 06:00:00', '/a'), "
              "(9, TIMESTAMP '2026-11-03 06:00:00', '/b')")
    for model in models:
        result = _run(spark, config, model)
        assert (result.mode, result.status) == ("incremental", "committed"), result
        assert _equal_to_scratch(spark, config, model), model
    by_day = spark.table(config.qualified("visits_by_day")).where("visitor = 1").collect()
    assert [(str(r.day), r.n) for r in by_day] == [("2026-11-01 00:00:00", 2)]


def test_a_select_that_no_longer_fits_its_table_is_refused_before_anything_is_written(spark, tmp_path):
    """The model's SQL file edited to yield a column its table lacks: the incremental and the full run both stop with
    the model, the column and the fix named, and the table keeps its snapshot."""
    config, _ = user_models_config(spark, tmp_path)
    create_tables(spark, config, "items")
    items = config.qualified("items")
    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES (1, 1, 1, TIMESTAMP '2026-11-01 05:00:00')")
    assert _run(spark, config, "items_current").mode == "full"
    def snapshot():
        return load_catalog(config.catalog).load_table(config.identifier("items_current")).current_snapshot().snapshot_id

    before = snapshot()
    (tmp_path / "items_current.sql").write_text("SELECT id, grp, v * 2 AS doubled, ts, v AS raw FROM items\n")
    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES (2, 1, 2, TIMESTAMP '2026-11-01 06:00:00')")
    for full in (False, True):
        with pytest.raises(ConfigError, match=r"models\.items_current: its SELECT yields raw, which table .*items_current` "
                                              r"does not have; add .*--full"):
            _run(spark, config, "items_current", full=full)
    assert snapshot() == before


@pytest.mark.parametrize("partition_by", [["month(ts)"], []], ids=["monthly", "unpartitioned"])
def test_a_backfill_replaces_its_dates_in_a_table_not_partitioned_by_day(spark, tmp_path, monkeypatch, partition_by):
    """A model's table whose files may hold rows of several days, where Iceberg's overwrite by filter refuses a date:
    the backfill of a date updates, inserts and deletes that date's rows and leaves the others as they were."""
    from tests.integration.etl import user_models

    columns = user_models.TABLES["lakeops.items_current"]["create"]["columns"]
    monkeypatch.setitem(user_models.TABLES, "lakeops.items_current",
                        {"create": {"columns": columns, "partition_by": partition_by}})
    config, _ = user_models_config(spark, tmp_path)
    create_tables(spark, config, "items")
    items = config.qualified("items")
    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES (1, 1, 1, TIMESTAMP '2026-11-01 05:00:00'), "
              "(2, 1, 2, TIMESTAMP '2026-11-02 06:00:00'), (3, 1, 3, TIMESTAMP '2026-11-02 07:00:00')")
    assert _run(spark, config, "items_current").mode == "full"
    # An incremental run writes item 5 into a file of its own, which the backfill must rewrite with no key matched.
    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES (5, 1, 5, TIMESTAMP '2026-11-02 09:00:00')")
    assert _run(spark, config, "items_current").mode == "incremental"
    spark.sql(f"UPDATE {items} SET v = 5 WHERE id IN (1, 2)")
    spark.sql(f"DELETE FROM {items} WHERE id IN (3, 5)")
    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES (4, 1, 4, TIMESTAMP '2026-11-02 08:00:00')")
    result = _run(spark, config, "items_current", backfill_dates=(date(2026, 11, 2),))
    assert (result.mode, result.status) == ("backfill", "committed")
    current = config.qualified("items_current")
    spark.catalog.refreshTable(current)
    # The 2nd recomputed (2 updated, 3 and 5 gone, 4 new); the 1st as the full run left it.
    assert sorted((r.id, r.doubled) for r in spark.table(current).collect()) == [(1, 2), (2, 10), (4, 8)]
    assert _run(spark, config, "items_current").mode in ("incremental", "full")
    assert _equal_to_scratch(spark, config, "items_current")


def test_changelog_model_follows_equality_deletes(spark, tmp_path):
    """Equality delete files (Flink's and Kafka Connect's upserts write them; committed here through Iceberg's
    Java API) in a run's range, beside position deletes, and an id deleted by equality then inserted again
    (the delete applies only to older rows): after each run the model equals its recompute."""
    config, _ = user_models_config(spark, tmp_path)
    create_tables(spark, config, "items")
    items = config.qualified("items")
    spark.sql(f"ALTER TABLE {items} SET TBLPROPERTIES ('format-version'='2', {MOR})")
    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES (1, 0, 1, TIMESTAMP '2026-11-01 05:00:00'), "
              "(2, 0, 2, TIMESTAMP '2026-11-01 06:00:00'), (3, 1, 3, TIMESTAMP '2026-11-02 06:00:00'), "
              "(4, 1, 4, TIMESTAMP '2026-11-02 07:00:00')")
    assert _run(spark, config, "items_by_group").mode == "full"
    catalog = load_catalog(config.catalog)
    table = catalog.load_table(config.identifier("items"))
    first_day = next(iter(table.scan(row_filter="id = 1").plan_files())).file

    commit_equality_delete(spark, items, table, "id", [1], first_day)
    spark.sql(f"UPDATE {items} SET v = v + 10 WHERE id = 3")
    assert int(catalog.load_table(config.identifier("items")).current_snapshot().summary["total-equality-deletes"]) == 1
    assert _run(spark, config, "items_by_group").mode == "incremental"
    assert _equal_to_scratch(spark, config, "items_by_group")
    assert spark.table(items).where("id = 1").count() == 0

    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES (1, 1, 50, TIMESTAMP '2026-11-01 09:00:00')")
    commit_equality_delete(spark, items, catalog.load_table(config.identifier("items")), "id", [2], first_day)
    assert _run(spark, config, "items_by_group").mode == "incremental"
    assert _equal_to_scratch(spark, config, "items_by_group")
    assert [(r.id, r.v) for r in spark.table(items).where("id IN (1, 2)").collect()] == [(1, 50)]


@pytest.mark.parametrize("version", [2, 3])
def test_the_changed_files_found_from_metadata_are_those_icebergs_java_planning_finds(spark, tmp_path, version):
    """lakeops.etl.diff_files finds with pyiceberg the files the snapshot diff reads (lakeops.spark.etl_changes, planned
    by Iceberg in the JVM): the same files and bytes over ranges of inserts, updates, deletes and a compaction with
    position delete files, and the JVM given them fetches the same tasks; none found (the JVM decides) once deletion
    vectors (format 3) or equality deletes are in a range."""
    from lakeops.etl.diff_files import diff_files
    from lakeops.spark.etl_changes import changed_between
    from lakeops.spark.scan_tasks import StagedReads, java_table

    config, _ = user_models_config(spark, tmp_path)
    create_tables(spark, config, "items")
    items = config.qualified("items")
    spark.sql(f"ALTER TABLE {items} SET TBLPROPERTIES ('format-version'='{version}', {MOR})")
    catalog = load_catalog(config.catalog)
    snapshots = []
    for statement in (
        f"INSERT INTO {items} (id, grp, v, ts) VALUES " + ", ".join(
            f"({i}, {i % 3}, {i}, TIMESTAMP '2026-11-{1 + i % 5:02d} 0{i % 7}:00:00')" for i in range(30)),
        f"UPDATE {items} SET v = v + 1 WHERE id = 3",
        f"DELETE FROM {items} WHERE id % 4 = 0",
        f"INSERT INTO {items} (id, grp, v, ts) VALUES (90, 1, 9, TIMESTAMP '2026-11-09 01:00:00')",
        f"CALL {config.catalog.name}.system.rewrite_data_files(table => '{items}', "
        "options => map('min-input-files', '1', 'delete-file-threshold', '1'))",
    ):
        spark.sql(statement)
        snapshots.append(catalog.load_table(config.identifier("items")).current_snapshot().snapshot_id)
    table = catalog.load_table(config.identifier("items"))
    staged = StagedReads(spark, items, java_table(spark, items))
    found = []
    try:
        for start, end in itertools.combinations(snapshots, 2):
            in_java = changed_between(staged, start, end)
            found.append(diff_files(table, start, end))
            assert in_java.read_bytes > 0, (start, end)
            if found[-1] is None:
                assert version == 3, (start, end)
                continue
            assert (sorted(found[-1].read_start), sorted(found[-1].read_end), found[-1].read_bytes) == (
                sorted(in_java.read_start), sorted(in_java.read_end), in_java.read_bytes), (start, end)
            assert (found[-1].live_start, found[-1].live_end) == (in_java.live_start, in_java.live_end)
            given = changed_between(staged, start, end, found[-1])
            assert {p: str(t.file().location()) for p, t in given.read_end.items()} == {p: p for p in in_java.read_end}
            assert [len(list(given.read_end[p].deletes())) for p in sorted(given.read_end)] == [
                len(list(in_java.read_end[p].deletes())) for p in sorted(in_java.read_end)]
    finally:
        staged.release()
    assert (None in found) == (version == 3)  # format 3's updates and deletes wrote deletion vectors
    if version == 2:
        commit_equality_delete(spark, items, table, "id", [5], next(iter(table.scan(row_filter="id = 5").plan_files())).file)
        table = catalog.load_table(config.identifier("items"))
        assert diff_files(table, snapshots[0], table.current_snapshot().snapshot_id) is None


@pytest.fixture
def process_in_new_york(monkeypatch):
    """The Python process (an Airflow worker, a laptop running the CLI) in America/New_York, five hours behind UTC;
    the Spark session stays in UTC."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("time_type", ["timestamp", "timestamp_ntz"])
def test_day_models_follow_utc_days_whatever_the_process_time_zone(spark, tmp_path, monkeypatch, process_in_new_york,
                                                                   time_type):
    """Models by day of a timestamp (with or without a time zone) and by a DATE, planned by a process whose local day
    starts five hours after the UTC day: the touched periods and a backfill's date are UTC days, as Iceberg's day
    partitions are (a TIMESTAMP_NTZ's wall-clock day). The touched day used to be the local day holding the UTC
    midnight, and a late visit recomputed its day from its first five hours of visits (and a DATE partition column
    failed the run)."""
    from tests.integration.etl import user_models

    for name, columns in (("visits", {"visitor": "bigint", "ts": time_type}),
                          ("visits_by_day", {"visitor": "bigint", "day": time_type, "n": "bigint"})):
        partition_by = user_models.TABLES[f"lakeops.{name}"]["create"]["partition_by"]
        monkeypatch.setitem(user_models.TABLES, f"lakeops.{name}", {"create": {"columns": columns, "partition_by": partition_by}})
    models = ("visits_by_day", "visits_by_date")
    config, _, visits = _items_and_visits(spark, tmp_path, models, "(1, 1, 1, TIMESTAMP '2026-11-10 05:00:00')",
                                          "(1, TIMESTAMP '2026-11-10 01:00:00'), (1, TIMESTAMP '2026-11-10 10:00:00'), "
                                          "(1, TIMESTAMP '2026-11-10 22:00:00'), (1, TIMESTAMP '2026-11-11 02:00:00'), "
                                          "(1, TIMESTAMP '2026-11-11 12:00:00')")
    spark.sql(f"INSERT INTO {visits} VALUES (1, TIMESTAMP '2026-11-10 23:00:00'), (1, TIMESTAMP '2026-11-11 03:00:00')")
    for model in models:
        result = _run(spark, config, model)
        assert (result.mode, result.status) == ("incremental", "committed"), result
        assert _equal_to_scratch(spark, config, model), model
    spark.sql(f"INSERT INTO {visits} VALUES (1, TIMESTAMP '2026-11-10 04:00:00'), (1, TIMESTAMP '2026-11-11 04:30:00')")
    for model in models:
        result = _run(spark, config, model, backfill_dates=(date(2026, 11, 10),))
        assert (result.mode, result.status) == ("backfill", "committed"), result
        rows = spark.table(config.qualified(config.model(model).table_name)).collect()
        # The 10th recomputed with its five visits; the 11th as the incremental run left it (its 04:30 visit not yet read).
        # PySpark gives a timestamp in local time (its UTC day is the partition's), a TIMESTAMP_NTZ as its wall clock.
        days = [(r.day.astimezone(UTC) if time_type == "timestamp" else r.day).date() if isinstance(r.day, datetime)
                else r.day for r in rows]
        assert sorted(zip(days, (r.n for r in rows), strict=True)) == [(date(2026, 11, 10), 5), (date(2026, 11, 11), 3)], model


@pytest.mark.parametrize("version", [2, 3])
def test_models_follow_a_source_whose_partitioning_evolves(spark, tmp_path, version):
    """A source repartitioned by its writer between runs (a bucket field added, then the day field dropped), with
    updates and deletes falling in files of each spec: every incremental run and a backfill equal the recompute."""
    models = ("items_by_group", "items_current", "items_in_group")
    config, items, _ = _items_and_visits(spark, tmp_path, (), "(1, 1, 1, TIMESTAMP '2026-11-01 05:00:00'), "
                                         "(2, 1, 2, TIMESTAMP '2026-11-01 06:00:00'), (3, 2, 4, TIMESTAMP '2026-11-02 07:00:00')",
                                         "(1, TIMESTAMP '2026-11-01 05:00:00')")
    spark.sql(f"ALTER TABLE {items} SET TBLPROPERTIES ('format-version'='{version}')")
    assert [_run(spark, config, m).mode for m in models] == ["full"] * len(models)
    changes = [[f"ALTER TABLE {items} ADD PARTITION FIELD bucket(4, id)",
                f"INSERT INTO {items} (id, grp, v, ts) VALUES (4, 2, 8, TIMESTAMP '2026-11-01 09:00:00'), "
                "(5, 1, 3, TIMESTAMP '2026-11-02 01:00:00')",
                f"UPDATE {items} SET v = 16 WHERE id IN (1, 4)", f"DELETE FROM {items} WHERE id IN (2, 5)"],
               [f"ALTER TABLE {items} DROP PARTITION FIELD days(ts)", f"UPDATE {items} SET v = 32 WHERE id IN (3, 4)",
                f"INSERT INTO {items} (id, grp, v, ts) VALUES (6, 2, 8, TIMESTAMP '2026-11-03 09:00:00')",
                f"DELETE FROM {items} WHERE id = 1"]]
    for statements in changes:
        for statement in statements:
            spark.sql(statement)
        for model in models:
            assert _run(spark, config, model).status == "committed", model
            assert _equal_to_scratch(spark, config, model), model
    for model in models:
        assert _run(spark, config, model, backfill_dates=(date(2026, 11, 1),)).mode == "backfill"
        assert _equal_to_scratch(spark, config, model), model


def test_a_python_model_runs_like_a_sql_one(spark, tmp_path):
    """A model given as a Python function: its first run is full, then inserts, updates and deletes of its source run
    incrementally, and a backfill of a date, each equal to the recompute."""
    config, items, _ = _items_and_visits(spark, tmp_path, ("items_spread",),
                                         "(1, 1, 5, TIMESTAMP '2026-11-01 05:00:00'), "
                                         "(2, 1, 2, TIMESTAMP '2026-11-01 06:00:00'), "
                                         "(3, 2, 4, TIMESTAMP '2026-11-02 07:00:00')", "(1, TIMESTAMP '2026-11-01 05:00:00')")
    spark.sql(f"UPDATE {items} SET v = 9 WHERE id = 2")
    spark.sql(f"DELETE FROM {items} WHERE id = 3")
    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES (4, 2, 1, TIMESTAMP '2026-11-02 09:00:00'), "
              "(5, 2, 7, TIMESTAMP '2026-11-02 10:00:00')")
    result = _run(spark, config, "items_spread")
    assert (result.mode, result.status) == ("incremental", "committed"), result
    assert _equal_to_scratch(spark, config, "items_spread")
    rows = spark.table(config.qualified("items_spread")).collect()
    assert sorted((r.grp, r.spread, r.largest) for r in rows) == [(1, 4, 2), (2, 6, 5)]
    spark.sql(f"UPDATE {items} SET v = 0 WHERE id = 1")
    assert _run(spark, config, "items_spread", backfill_dates=(date(2026, 11, 1),)).mode == "backfill"
    assert _equal_to_scratch(spark, config, "items_spread")


def test_a_select_yielding_two_rows_for_one_key_is_refused_naming_the_key(spark, tmp_path, monkeypatch):
    """A model declared with a key its SELECT does not make unique (items keyed by their group): the incremental run's
    MERGE fails Spark's cardinality check, and the error names the model, a duplicated key and the fix; the model's
    table keeps its snapshot."""
    from tests.integration.etl import user_models

    monkeypatch.setitem(user_models.MODELS, "items_current", {**user_models.MODELS["items_current"], "key": ["grp"],
                                                              "full_recompute_share": 0})
    config, items, _ = _items_and_visits(spark, tmp_path, ("items_current",),
                                         "(1, 1, 1, TIMESTAMP '2026-11-01 05:00:00'), (2, 1, 2, TIMESTAMP '2026-11-01 06:00:00')",
                                         "(1, TIMESTAMP '2026-11-01 05:00:00')")
    table = load_catalog(config.catalog).load_table(config.identifier("items_current"))
    before = table.current_snapshot().snapshot_id
    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES (3, 1, 3, TIMESTAMP '2026-11-01 07:00:00')")
    with pytest.raises(ConfigError, match=r"models\.items_current: its SELECT yields more than one row for a key \(grp\) "
                                          r"grp = 1 \(3 rows\); .*models\.items_current\.key .*--full"):
        _run(spark, config, "items_current")
    assert table.refresh().current_snapshot().snapshot_id == before


def test_a_bulk_append_recomputes_in_full_and_a_small_one_stays_incremental(spark, tmp_path, monkeypatch):
    """An append source that gained most of its bytes since the watermark (a load of history, say): the planner
    recomputes the model in full from the snapshot summaries, naming the share, instead of gathering nearly every key
    in the driver; the next small append runs incrementally."""
    from tests.integration.etl import user_models

    monkeypatch.setitem(user_models.MODELS, "visits_by_day", {**user_models.MODELS["visits_by_day"], "full_recompute_share": 0.5})
    config, _, visits = _items_and_visits(spark, tmp_path, ("visits_by_day",), "(1, 1, 1, TIMESTAMP '2026-11-01 05:00:00')",
                                          "(1, TIMESTAMP '2026-11-01 05:00:00')")
    spark.range(5000).selectExpr("id % 50 AS visitor", "TIMESTAMP '2026-11-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id) "
                                 "AS ts").writeTo(visits).append()
    result = _run(spark, config, "visits_by_day")
    assert (result.mode, result.status) == ("full", "committed"), result
    assert re.search(r"source visits had [\d,]+ bytes of files appended since the watermark, \d+% of its", result.reason)
    assert _equal_to_scratch(spark, config, "visits_by_day")
    spark.sql(f"INSERT INTO {visits} VALUES (3, TIMESTAMP '2026-11-01 07:00:00')")
    assert _run(spark, config, "visits_by_day").mode == "incremental"
    assert _equal_to_scratch(spark, config, "visits_by_day")


def _items_on_ten_days(spark, items):
    """Items 1 and 2 on November 1st, items 3 to 10 one a day after: a change of item 1 touches one file in ten."""
    spark.sql(f"INSERT INTO {items} (id, grp, v, ts) VALUES (1, 0, 1, TIMESTAMP '2026-11-01 01:00:00'), "
              "(2, 0, 2, TIMESTAMP '2026-11-01 02:00:00'), " + ", ".join(
                  f"({i}, 1, {i}, TIMESTAMP '2026-11-{i - 1:02d} 03:00:00')" for i in range(3, 11)))


def test_a_format_3_model_table_keeps_the_row_lineage_of_the_rows_a_run_copies(spark, tmp_path):
    """An incremental run rewrites the files holding a changed key: their other rows keep their row ids, as a MERGE's
    copied rows do; the recomputed row is a new row."""
    config, _ = user_models_config(spark, tmp_path)
    create_tables(spark, config, "items", "items_current")
    items, current = config.qualified("items"), config.qualified("items_current")
    spark.sql(f"ALTER TABLE {items} SET TBLPROPERTIES ('format-version'='2', {MOR})")
    spark.sql(f"ALTER TABLE {current} SET TBLPROPERTIES ('format-version'='3')")
    _items_on_ten_days(spark, items)
    assert _run(spark, config, "items_current").mode == "full"
    before = {r.id: r._row_id for r in spark.sql(f"SELECT id, _row_id FROM {current}").collect()}

    spark.sql(f"UPDATE {items} SET v = 10 WHERE id = 1")
    result = _run(spark, config, "items_current")
    assert (result.mode, result.status, result.keys) == ("incremental", "committed", 1)
    assert _equal_to_scratch(spark, config, "items_current")
    after = {r.id: r._row_id for r in spark.sql(f"SELECT id, _row_id FROM {current}").collect()}
    assert all(after[i] == before[i] for i in range(2, 11)), (before, after)  # copied (id 2) and untouched
    assert after[1] not in before.values()


def test_a_commit_to_the_model_table_during_a_run_fails_the_run_and_its_retry_lands_once(spark, tmp_path, monkeypatch):
    """The replacement is validated as a copy-on-write MERGE is: a file it replaces that another writer deleted
    meanwhile fails the commit, nothing of the run is published, and the retry recomputes from the new state."""
    from lakeops.spark import etl_replace

    config, _ = user_models_config(spark, tmp_path)
    create_tables(spark, config, "items")
    items, current = config.qualified("items"), config.qualified("items_current")
    spark.sql(f"ALTER TABLE {items} SET TBLPROPERTIES ('format-version'='2', {MOR})")
    _items_on_ten_days(spark, items)
    assert _run(spark, config, "items_current").mode == "full"
    watermark = current_watermarks(load_catalog(config.catalog).load_table(config.identifier("items_current")))
    spark.sql(f"UPDATE {items} SET v = 10 WHERE id = 1")

    commit = etl_replace._commit

    def racing(*args, **kwargs):
        """Another writer rewrites the day's file first (copy-on-write): published at once, and without the run's
        snapshot properties, which the run sets in this session's settings."""
        run = {k: v for k, v in spark.conf.getAll.items() if k == "spark.wap.id" or "snapshot-property" in k}
        for key in run:
            spark.conf.unset(key)
        spark.sql(f"ALTER TABLE {current} SET TBLPROPERTIES ('write.delete.mode'='copy-on-write')")
        spark.sql(f"DELETE FROM {current} WHERE id = 2")
        for key, value in run.items():
            spark.conf.set(key, value)
        return commit(*args, **kwargs)

    monkeypatch.setattr(etl_replace, "_commit", racing)
    with pytest.raises(Exception, match="ValidationException: Found conflicting files"):
        _run(spark, config, "items_current")
    catalog = load_catalog(config.catalog)
    assert current_watermarks(catalog.load_table(config.identifier("items_current"))) == watermark
    monkeypatch.setattr(etl_replace, "_commit", commit)
    retry = _run(spark, config, "items_current")
    assert (retry.mode, retry.status) == ("incremental", "committed")
    # The retry recomputed id 1 from the source; id 2, which the other writer deleted, stays deleted: its source
    # row did not change, so no run recomputes it.
    assert sorted((r.id, r.doubled) for r in spark.table(current).collect()) == [(1, 20)] + [(i, 2 * i) for i in range(3, 11)]
