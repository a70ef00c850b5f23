"""Which snapshots are replayed over the master, how their deltas combine, and when a micro zonemap's listing
stands for an append's delta: literal histories."""

from __future__ import annotations

from lakeops.zonemap.history import AddedFile, Delta, SnapshotRef, append_delta, replay, replay_chain


def chain(*refs: tuple[int, int | None, int, int]) -> dict[int, SnapshotRef]:
    return {r[0]: SnapshotRef(*r) for r in refs}


# id, parent, sequence number, commit ms
LINE = chain((1, None, 1, 100), (2, 1, 2, 200), (3, 2, 3, 300), (4, 3, 4, 400), (5, 4, 5, 500))


def test_replays_the_snapshots_after_the_master_and_those_past_its_scope():
    assert replay_chain(LINE, 5, 3, 301) == [4, 5]
    assert replay_chain(LINE, 5, 3, 250) == [3, 4, 5], "the master's own snapshot is past its scope end"
    assert replay_chain(LINE, 5, 3, 150) == [2, 3, 4, 5]
    assert replay_chain(LINE, 3, 3, 301) == []


def test_the_master_cannot_serve_an_older_snapshot_another_branch_or_a_gap():
    assert replay_chain(LINE, 2, 3, 301) is None
    branch = {**LINE, 6: SnapshotRef(6, 2, 6, 600)}
    assert replay_chain(branch, 6, 3, 301) is None
    gap = {k: v for k, v in LINE.items() if k != 4}
    assert replay_chain(gap, 5, 3, 301) is None
    assert replay_chain(LINE, 5, 99, 301) is None


def test_replay_applies_adds_and_deletes_in_order():
    a, b, c = (AddedFile(p, 10, 1) for p in "abc")
    deltas = [Delta((a, b), frozenset({"m1"})), Delta((c,), frozenset({"a", "m2"})), Delta((), frozenset({"x"}))]
    removed, added = replay({"m1", "m2", "m3"}, deltas)
    assert removed == {"m1", "m2"}
    assert list(added) == ["b", "c"]


A = AddedFile("s3://b/a.parquet", 100, 10, "2026-11-22")
B = AddedFile("s3://b/b.parquet", 200, 20, "2026-11-22")


def test_an_append_s_delta_is_its_micro_zonemap_s_listing_when_the_summary_counts_exactly_those_files():
    assert append_delta("append", {"added-data-files": "2", "added-records": "30"}, [A, B]) == Delta((A, B), frozenset())
    assert append_delta("append", {"added-data-files": "3"}, [A, B]) is None, "a file the listing misses"
    assert append_delta("append", {"added-data-files": "1"}, [A, B]) is None
    assert append_delta("append", {"added-data-files": "2"}, [A, A]) is None, "a path listed twice"
    assert append_delta("append", {}, [A]) is None, "a summary without counts proves nothing"
    assert append_delta("append", None, [A]) is None


def test_only_an_append_s_delta_comes_from_a_listing():
    for operation in ("overwrite", "delete", "replace"):
        assert append_delta(operation, {"added-data-files": "1"}, [A]) is None, operation
    assert append_delta("append", {"added-data-files": "1", "deleted-data-files": "1"}, [A]) is None
