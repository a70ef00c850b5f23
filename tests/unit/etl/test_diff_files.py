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
