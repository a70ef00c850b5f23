"""Property: planning from the index (the master plus the snapshots since, lakeops.zonemap.history)
lists exactly the live files of a full manifest listing, at every snapshot of a random history of
appends (of one file, and of two files in one manifest, which a later delete of one rewrites), deletes,
overwrites and consolidations (masters through the current snapshot, and through
an earlier day, whose scope ends before the snapshot it was reconciled against); and with masters in
row groups of two entries, a lookup reading only the candidate row groups plans what reading the
whole master plans. pyiceberg and a SQLite catalog only: no Spark."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from unittest.mock import patch

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from pyiceberg import expressions as E
from pyiceberg.catalog.sql import SqlCatalog

from lakeops.config.policies import ZonemapConfig
from lakeops.zonemap import candidates, consolidate, groups, history
from lakeops.zonemap.candidates import candidate_files
from lakeops.zonemap.consolidate import consolidate_day, reconcile
from lakeops.zonemap.history import DELTAS
from lakeops.zonemap.hot import HOT
from lakeops.zonemap.live import live_files
from lakeops.zonemap.micro import write_micro_zonemap

SPEC = SimpleNamespace(zonemap=ZonemapConfig(columns=("id",), bloom_columns=("id",)))
STEPS = st.lists(st.sampled_from(["append", "append", "append-two", "append-unindexed", "delete", "overwrite", "reconcile",
                                  "yesterday"]),
                 min_size=2, max_size=9)
_names = itertools.count()


@settings(max_examples=8, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(steps=STEPS, seed=st.integers(0, 1000), row_group=st.sampled_from([2, consolidate.MASTER_ROW_GROUP]))
@example(steps=["append", "reconcile", "append-two", "delete", "append"], seed=3, row_group=2)  # a rewritten manifest
def test_incremental_planning_lists_the_live_files_at_every_snapshot(tmp_path, steps, seed, row_group):
    with patch.object(consolidate, "MASTER_ROW_GROUP", row_group):
        _history(tmp_path, steps, seed)


def _whole_master(uri: str, key: tuple, types: dict) -> groups.MasterGroups | None:
    """The master's row groups without their summary: candidate_files then reads it whole."""
    found = groups.master_groups(uri, key, types)
    return None if found is None else groups.MasterGroups(found.uri, found.key, found.starts, None, found.path_bounds)


def _same_plan(table, predicate, snapshot_id) -> None:
    """Reading the candidate row groups plans what reading the whole master plans."""
    HOT.clear()
    by_group = candidate_files(table, predicate, snapshot_id)
    HOT.clear()
    with patch.object(candidates, "master_groups", _whole_master):
        whole = candidate_files(table, predicate, snapshot_id)
    HOT.clear()
    assert sorted(by_group.files) == sorted(whole.files), predicate
    assert (by_group.live_files, by_group.indexed_live_files, by_group.stale_entries, by_group.minmax_files) == \
        (whole.live_files, whole.indexed_live_files, whole.stale_entries, whole.minmax_files), predicate


def _history(tmp_path, steps, seed) -> None:
    catalog = SqlCatalog("t", uri=f"sqlite:///{tmp_path}/c.db", warehouse=(tmp_path / "wh").as_uri())
    catalog.create_namespace_if_not_exists("ns")
    table = catalog.create_table(f"ns.t{next(_names)}", pa.schema([pa.field("id", pa.int64())]))
    value = seed
    mastered = False
    for step in steps:
        if step == "append-two":  # one snapshot, one manifest, two files: a later delete of one rewrites it
            value += 1
            paths = []
            for ids in ([value, value + 1000], [value + 2000]):
                path = tmp_path / f"two-{next(_names)}.parquet"
                pq.write_table(pa.table({"id": pa.array(ids, pa.int64())}, schema=table.schema().as_arrow()), path)
                paths.append(path.as_uri())
            table.add_files(paths)
            write_micro_zonemap(table, SPEC, table.current_snapshot().snapshot_id)
        elif step.startswith("append"):
            value += 1
            table.append(pa.table({"id": pa.array([value, value + 1000], pa.int64())}))
            if step == "append":
                write_micro_zonemap(table, SPEC, table.current_snapshot().snapshot_id)
        elif step == "delete" and table.current_snapshot():
            table.delete(E.EqualTo("id", value))
        elif step == "overwrite":
            value += 1
            table.overwrite(pa.table({"id": pa.array([value], pa.int64())}), overwrite_filter=E.LessThan("id", value - 1))
        elif step == "reconcile" and table.current_snapshot():
            reconcile(table, SPEC)
            mastered = True
        elif step == "yesterday" and table.current_snapshot():
            consolidate_day(table, SPEC, (datetime.now(UTC) - timedelta(days=1)).date(), remove_micro=False)
            mastered = True
        table = table.refresh()
    for snapshot in table.snapshots():
        DELTAS.clear()  # each plan reads its whole chain from the snapshot's manifest list (history.chain_deltas)
        found = candidate_files(table, E.AlwaysTrue(), snapshot.snapshot_id)
        assert sorted(found.files) == sorted(f.path for f in live_files(table, snapshot.snapshot_id)), (steps, snapshot)
        assert found.live_files == len(found.files)
        for predicate in (E.AlwaysTrue(), E.EqualTo("id", seed + 1), E.LessThan("id", seed + 3), E.GreaterThan("id", 1000)):
            _same_plan(table, predicate, snapshot.snapshot_id)
    if mastered:
        assert not candidate_files(table, E.AlwaysTrue()).full_listing, "the current snapshot is served by the master"


def test_appends_with_micro_zonemaps_are_planned_without_reading_their_manifests(tmp_path):
    """After the master, three appends with a micro zonemap and one without: only the one without has its
    manifests read, and the plan lists the live files."""
    catalog = SqlCatalog("t", uri=f"sqlite:///{tmp_path}/c.db", warehouse=(tmp_path / "wh").as_uri())
    catalog.create_namespace_if_not_exists("ns")
    table = catalog.create_table("ns.t", pa.schema([pa.field("id", pa.int64())]))
    table.append(pa.table({"id": pa.array([1, 2], pa.int64())}))
    write_micro_zonemap(table, SPEC, table.current_snapshot().snapshot_id)
    reconcile(table, SPEC)
    indexed = []
    for value in (10, 20, 30, 40):
        table.append(pa.table({"id": pa.array([value], pa.int64())}))
        if value != 30:
            write_micro_zonemap(table, SPEC, table.current_snapshot().snapshot_id)
            indexed.append(table.current_snapshot().snapshot_id)
        table = table.refresh()
    read = []
    original = history._delta_of

    def counted(t, snapshot_id, manifests):
        read.append(snapshot_id)
        return original(t, snapshot_id, manifests)

    DELTAS.clear()
    HOT.clear()
    with patch.object(history, "_delta_of", counted):
        found = candidate_files(table, E.AlwaysTrue())
    assert found.replayed_snapshots == 4 and not found.full_listing
    assert sorted(found.files) == sorted(f.path for f in live_files(table, table.current_snapshot().snapshot_id))
    unindexed = [s.snapshot_id for s in table.snapshots()[-4:] if s.snapshot_id not in indexed]
    assert read == unindexed and len(unindexed) == 1
