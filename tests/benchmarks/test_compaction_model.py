"""The file-count model of the compaction benchmark, from literal streams."""

from __future__ import annotations

from benchmarks.compaction_model import Change, FileCount, cron, net_changes, settled, simulate, threshold, worst_first

DAY1, DAY2 = 1763683200000000, 1763769600000000  # 2025-11-21 and -22, 00:00 UTC, in microseconds


def _event(op: str, key: int, created: int) -> dict:
    row = {"order_id": key, "created_at": created}
    return {"op": op, "before": None if op == "c" else row, "after": None if op == "d" else row}


def test_an_interval_nets_to_one_change_per_key_as_the_merge_applies_it() -> None:
    history = {1: "2025-11-21", 2: "2025-11-21"}
    events = [_event("u", 1, DAY1), _event("u", 1, DAY1), _event("d", 2, DAY1),
              _event("c", 3, DAY2), _event("u", 3, DAY2), _event("c", 4, DAY2), _event("d", 4, DAY2)]

    changes = net_changes(history, events)

    assert changes == [Change(1, "2025-11-21", "update"), Change(2, "2025-11-21", "delete"),
                       Change(3, "2025-11-22", "insert")]
    assert history == {1: "2025-11-21", 3: "2025-11-22"}, "key 4 came and went within the interval"


def test_one_delete_file_per_data_file_that_lost_rows_and_a_fold_leaves_one_file() -> None:
    table = FileCount({1: "a", 2: "a", 3: "b"})
    table.apply([Change(1, "a", "update"), Change(4, "a", "insert")], 0)
    table.apply([Change(2, "a", "delete")], 1)

    assert (table.data_files("a"), table.delete_files("a")) == (2, 1), "the snapshot file's deletes are one file"
    table.apply([Change(1, "a", "update")], 2)
    assert (table.data_files("a"), table.delete_files("a")) == (3, 2)
    assert (table.scanned(), table.compacted()) == (6, 2)

    table.fold("a")
    assert (table.data_files("a"), table.delete_files("a"), table.scanned()) == (1, 0, 2)


def test_the_tuned_cron_folds_partitions_with_two_files_on_its_minutes_only() -> None:
    table = FileCount({**{k: "a" for k in range(1, 11)}, 11: "b", 12: "c", 13: "c"})
    table.apply([Change(1, "a", "update"), Change(20, "b", "insert")], 0)

    assert cron(10)(table, 5) == []
    assert sorted(cron(10)(table, 10)) == ["a", "b"]
    assert cron(10, min_input_files=5)(table, 10) == [], "Iceberg's default waits for five files; 1 row of 10 deleted"
    table.apply([Change(12, "c", "delete")], 1)
    assert cron(10, min_input_files=5)(table, 10) == ["c"], "a file that lost half its rows is past the delete ratio"


def test_the_trigger_fires_on_the_whole_tables_amplification_and_folds_every_partition_with_an_extra_file() -> None:
    table = FileCount({k: f"p{k}" for k in range(20)})
    table.apply([Change(k, f"p{k}", "update") for k in range(6)], 0)  # 20 + 12 files against 20 compacted

    assert threshold(1.7)(table, 5) == []
    assert sorted(threshold(1.5)(table, 5)) == [f"p{k}" for k in range(6)]
    assert threshold(1.5, min_excess_files=13)(table, 5) == []


def test_worst_first_folds_the_partitions_with_most_extra_files_until_the_scan_is_down_to_its_level() -> None:
    table = FileCount({k: f"p{k}" for k in range(10)})
    table.apply([Change(k, f"p{k}", "update") for k in range(4)], 0)  # p0..p3: 3 files each
    table.apply([Change(2, "p2", "update"), Change(3, "p3", "update")], 1)  # p2, p3: 5 files each
    assert (table.scanned(), table.compacted()) == (22, 10)

    assert worst_first(2.0, 1.4, min_excess_files=1)(table, 10) == ["p2", "p3"], "22 - 4 - 4 = 14 files: at 1.4"
    assert worst_first(2.0, 1.2, min_excess_files=1)(table, 10) == ["p2", "p3", "p0"], "14 - 2 = 12 files: at 1.2"
    assert worst_first(2.0, 1.0, min_excess_files=1)(table, 10) == ["p2", "p3", "p0", "p1"]
    assert worst_first(2.3, 1.0, min_excess_files=1)(table, 10) == [], "22 files are under 2.3 times 10: no run"


def test_settled_folds_only_the_partitions_dirty_for_its_minutes_and_remembers_them_between_checks() -> None:
    table = FileCount({k: f"p{k}" for k in range(10)})
    choose = settled(1.2, 10, min_excess_files=1)
    table.apply([Change(0, "p0", "update")], 0)
    assert choose(table, 5) == [], "12 files against 10 fire the trigger, but p0 turned dirty just now"
    table.apply([Change(1, "p1", "update")], 1)
    assert choose(table, 10) == [], "14 files: over 1.2, but p0 has been dirty for 5 minutes, p1 for none"
    table.apply([Change(2, "p2", "update")], 2)
    assert choose(table, 15) == ["p0"], "p0 dirty since minute 5"
    table.fold("p0")
    assert choose(table, 20) == ["p1"], "p0 is clean again; p1 dirty since minute 10"


def test_simulate_counts_runs_folds_and_the_flatness_after_each_interval() -> None:
    snapshot = {1: "a", 2: "b"}
    intervals = [[Change(1, "a", "update")], [Change(2, "b", "update")], [], []]

    result = simulate(snapshot, intervals, cron(10))

    # after each interval: a has 3 files (2 data + 1 delete) -> 4/2; folded at 10 -> 2/2; then clean
    assert (result["runs"], result["folds"]) == (1, 2)
    assert result["amp_median"] == 1.0 and result["amp_p90"] == 2.0
    assert result["cpu_s"] == round(0.43 + 2 * 0.052, 2)
