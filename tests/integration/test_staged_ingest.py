"""Staged writers and one committer on real local Spark and a fresh embedded catalog: writers
(run_stage) write data files and manifests, the committer (commit_staged) commits them once."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pyarrow.parquet as pq
import pytest
from pyiceberg import expressions as E
from pyiceberg.conversions import from_bytes

from lakeops.catalog import load_catalog
from lakeops.generator import generate_events
from lakeops.ingest.plan import plan_ingest
from lakeops.spark.stage_events import run_stage
from lakeops.staging import store
from lakeops.staging.commit import commit_staged
from lakeops.staging.plan import attempt_data_dir, batch_key, staged_data_root, staging_dir, started_uri
from lakeops.zonemap.micro import micro_zonemap_uri
from lakeops.zonemap.store import read_files
from tests.conftest import make_test_config, register_catalog

pytestmark = pytest.mark.spark

START = datetime(2026, 11, 21, 23, 57, tzinfo=UTC)  # the interval crosses midnight: two day partitions
END = START + timedelta(minutes=5)
WRITERS = 2
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Staged:
    config: object
    landed: object
    plan: object
    stages: list
    result: object


@pytest.fixture(scope="module")
def staged(spark, tmp_path_factory):
    """One interval staged by two writers and committed once; the tests below only read it (or re-run
    what must change nothing)."""
    config = make_test_config(tmp_path_factory.mktemp("staged"))
    register_catalog(spark, config)
    landed = generate_events(config.landing_root, START, 5, 60, seed=11, bad_fraction=0.05)
    plan = plan_ingest(config, "events", START, END)
    stages = [run_stage(spark, config, "events", plan, k, WRITERS) for k in range(WRITERS)]
    assert _tables(config)[0].current_snapshot() is None, "writers commit nothing"
    return Staged(config, landed, plan, stages, commit_staged(config, "events", plan, WRITERS))


def _tables(config):
    catalog = load_catalog(config.catalog)
    return catalog.load_table("lakeops.events"), catalog.load_table("lakeops.events_quarantine")


def _ids(table):
    return table.scan(selected_fields=("event_id",)).to_arrow().column("event_id").to_pylist()


def test_writers_stage_and_one_commit_lands_every_row_once(spark, staged):
    config, landed, plan, result = staged.config, staged.landed, staged.plan, staged.result
    assert [r.status for r in staged.stages] == ["staged"] * WRITERS
    assert sum(r.files for r in staged.stages) == landed.files == 5 and min(r.files for r in staged.stages) >= 2

    events, quarantine = _tables(config)
    ids = _ids(events)
    assert (result.status, result.rows, result.quarantined) == ("committed", landed.good, landed.bad_total)
    assert len(ids) == len(set(ids)) == landed.good and set(ids) == landed.good_event_ids
    assert quarantine.scan().to_arrow().num_rows == landed.bad_total > 0
    assert len(events.snapshots()) == len(quarantine.snapshots()) == 1, "one commit per table for all writers"
    summary = events.current_snapshot().summary
    assert summary["lakeops.batch-id"] == plan.batch_id and summary["lakeops.commit-mode"] == "staged"
    assert summary["lakeops.writers"] == str(WRITERS) and summary["lakeops.rows"] == str(landed.good)
    assert spark.table(config.qualified("events")).count() == landed.good, "Spark reads what pyiceberg reads"

    key = batch_key("lakeops.events", plan.batch_id)
    assert store.list_tree(staging_dir(events.location(), key)) == {}, "manifests and markers are gone"
    committed = {store.fs_path(t.file.file_path) for t in events.scan().plan_files()}
    assert set(store.list_tree(staged_data_root(events.location(), key))) == committed, "only committed files stay"


def test_staged_files_carry_field_ids_partitions_and_metrics_that_prune(staged):
    events, _ = _tables(staged.config)
    tasks = list(events.scan().plan_files())
    days = {t.file.partition[0] for t in tasks}
    assert len(days) == 2, "the interval crosses midnight: two event-day partitions"

    time_id = events.schema().find_field("event_time").field_id
    for task in tasks:
        f = task.file
        data = pq.read_table(store.fs_path(f.file_path))
        field_ids = {int(fld.metadata[b"PARQUET:field_id"]) for fld in pq.ParquetFile(store.fs_path(f.file_path)).schema_arrow}
        assert field_ids == {c.field_id for c in events.schema().columns}
        properties = pq.ParquetFile(store.fs_path(f.file_path)).schema_arrow.field("properties").type
        written = {int(properties.key_field.metadata[b"PARQUET:field_id"]),
                   int(properties.item_field.metadata[b"PARQUET:field_id"])}
        assert written == {events.schema().find_field("properties.key").field_id,
                           events.schema().find_field("properties.value").field_id}
        times = data.column("event_time").to_pylist()
        assert {(t - EPOCH).days for t in times} == {f.partition[0]}, "one partition per file"
        assert times == sorted(times), "sorted by event_time within the file"
        assert f.record_count == data.num_rows and f.null_value_counts[time_id] == 0
        for column in ("event_time", "user_id"):
            field = events.schema().find_field(column)
            values = data.column(column).to_pylist()
            if column == "event_time":
                values = [int((v - EPOCH) / timedelta(microseconds=1)) for v in values]
            assert from_bytes(field.field_type, f.lower_bounds[field.field_id]) == min(values)
            assert from_bytes(field.field_type, f.upper_bounds[field.field_id]) == max(values)

    later_day = EPOCH + timedelta(days=max(days))
    before = list(events.scan(row_filter=E.LessThan("event_time", later_day.isoformat())).plan_files())
    assert 0 < len(before) < len(tasks) and all(t.file.partition[0] == min(days) for t in before)

    entries, unreadable = read_files([micro_zonemap_uri(events, staged.result.snapshot_id)])
    user_id = events.schema().find_field("user_id").field_id
    assert not unreadable and {e.file_path for e in entries} == {t.file.file_path for t in tasks}
    assert all(user_id in e.blooms for e in entries), "Bloom filters need field ids: the micro zonemap has them"


def test_commit_reruns_append_nothing_and_writers_of_a_committed_batch_stop(spark, staged):
    config, plan = staged.config, staged.plan
    snapshots = len(_tables(config)[0].snapshots())

    again = commit_staged(config, "events", plan, WRITERS)
    late_writer = run_stage(spark, config, "events", plan, 1, WRITERS)

    events, _ = _tables(config)
    assert (again.status, late_writer.status) == ("already_committed", "already_committed")
    assert len(events.snapshots()) == snapshots and len(_ids(events)) == staged.landed.good
    assert store.list_tree(staging_dir(events.location(), batch_key("lakeops.events", plan.batch_id))) == {}


def test_stale_staging_of_dead_runs_is_cleaned_and_fresh_staging_is_kept(catalog_spark, lakeops_config):
    landed = generate_events(lakeops_config.landing_root, START, 2, 30, seed=12)
    plan = plan_ingest(lakeops_config, "events", START, END)
    other = plan_ingest(lakeops_config, "events", START - timedelta(hours=1), START - timedelta(minutes=55))
    fresh = plan_ingest(lakeops_config, "events", START - timedelta(hours=2), START - timedelta(minutes=115))
    run_stage(catalog_spark, lakeops_config, "events", plan, 0, 1)
    events, _ = _tables(lakeops_config)
    events_loc = events.location()
    # Leftovers of dead writers of two other batches: one two days old, one from just now.
    for batch, age_s in ((other, 86_400 * 2), (fresh, 0)):
        key = batch_key("lakeops.events", batch.batch_id)
        store.write_text(started_uri(events_loc, key, 0, "dead"), "{}")
        store.write_text(f"{attempt_data_dir(events_loc, key, 0, 'dead')}/x.parquet", "half a file")
        for path in [*store.list_tree(staging_dir(events_loc, key)), *store.list_tree(staged_data_root(events_loc, key))]:
            os.utime(path, (time.time() - age_s, time.time() - age_s))

    result = commit_staged(lakeops_config, "events", plan, 1)

    old_key, fresh_key = batch_key("lakeops.events", other.batch_id), batch_key("lakeops.events", fresh.batch_id)
    assert result.stale_batches == (old_key,)
    assert store.list_tree(staging_dir(events_loc, old_key)) == {}
    assert store.list_tree(staged_data_root(events_loc, old_key)) == {}
    assert store.list_tree(staging_dir(events_loc, fresh_key)) and store.list_tree(staged_data_root(events_loc, fresh_key))
    assert len(_ids(_tables(lakeops_config)[0])) == landed.good
