"""Which files a changelog source's diff reads at each snapshot (lakeops.etl.diff_files.changed_files), on literal
plans: files added, removed, and kept with new or the same delete files."""

from __future__ import annotations

from lakeops.etl.diff_files import changed_files


def _plan(**deletes: tuple[str, ...]) -> dict[str, frozenset[str]]:
    return {path: frozenset(files) for path, files in deletes.items()}


def test_only_files_added_removed_or_with_other_deletes_are_read():
    before = _plan(kept=(), merged_on_read=("pos-1",), compacted=("pos-1",), vector=("dv.puffin@4",))
    after = _plan(kept=(), merged_on_read=("pos-1", "pos-2"), rewritten=(), vector=("dv2.puffin@4",), appended=())

    read_before, read_after = changed_files(before, after)

    assert sorted(read_before) == ["compacted", "merged_on_read", "vector"]
    assert sorted(read_after) == ["appended", "merged_on_read", "rewritten", "vector"]


def test_a_deletion_vector_rewritten_at_another_offset_of_the_same_file_is_a_change():
    before, after = _plan(f=("v.puffin@4",)), _plan(f=("v.puffin@120",))
    assert changed_files(before, after) == (["f"], ["f"])
    assert changed_files(before, before) == ([], [])


def test_manifests_pyiceberg_cannot_read_are_left_to_the_java_planning_with_a_warning(tmp_path, caplog):
    """A real table whose newest manifest list is gone from storage (as where pyiceberg lacks the storage's
    credentials): no count, and a warning that names the table, the error and where to look."""
    from pathlib import Path

    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog

    from lakeops.etl.diff_files import diff_files

    catalog = SqlCatalog("t", uri=f"sqlite:///{tmp_path}/c.db", warehouse=f"file://{tmp_path}/w")
    catalog.create_namespace("ns")
    table = catalog.create_table("ns.orders", pa.schema([("id", pa.int64())]))
    for ids in ([1, 2], [3]):
        table.append(pa.table({"id": pa.array(ids, pa.int64())}))
    first, second = (s.snapshot_id for s in table.snapshots())
    Path(table.current_snapshot().manifest_list.removeprefix("file://")).unlink()
    with caplog.at_level("WARNING", logger="lakeops.etl.diff_files"):
        assert diff_files(table, first, second) is None
    assert "ns.orders" in caplog.text and "storage settings" in caplog.text and "FileNotFoundError" in caplog.text
