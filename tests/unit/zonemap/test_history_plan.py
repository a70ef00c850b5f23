"""Which snapshots are replayed over the master, and how their deltas combine: literal histories."""

from __future__ import annotations

from lakeops.zonemap.history import AddedFile, Delta, SnapshotRef, replay, replay_chain


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
