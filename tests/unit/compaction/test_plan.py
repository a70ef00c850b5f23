"""plan_table against literal health figures: which partitions, which rewrite, why, in budget."""

from __future__ import annotations

import dataclasses

import pytest

from lakeops.compaction.plan import REMOVE_DANGLING, REWRITE_DATA, REWRITE_DELETES, REWRITE_MANIFESTS, plan_table
from lakeops.config import CompactionPolicy
from lakeops.exceptions import ConfigError
from lakeops.health.model import FileFigures, PartitionHealth, TableHealth

MB = 1024 * 1024
POLICY = CompactionPolicy(max_file_amplification=None)  # 128 MB target, 10 GB budget; partition rules alone


def part(day: int, *, data_files=4, data_records=400_000, data_bytes=4 * 100 * MB, small_files=0, small_file_bytes=0,
         delete_files=0, delete_records=0, delete_bytes=0, dangling_delete_files=0,
         dangling_delete_records=0) -> PartitionHealth:
    return PartitionHealth(
        data_files=data_files, data_records=data_records, data_bytes=data_bytes, small_files=small_files,
        small_file_bytes=small_file_bytes, avg_file_size_bytes=data_bytes / max(data_files, 1),
        position_delete_files=delete_files, equality_delete_files=0, deletion_vectors=0, delete_files=delete_files,
        delete_records=delete_records, delete_bytes=delete_bytes,
        delete_files_per_data_file=delete_files / max(data_files, 1), read_amp_files=1.0, read_amp_bytes=1.0,
        delete_files_added_per_hour=0.0, delete_bytes_added_per_hour=0.0,
        dangling_delete_files=dangling_delete_files, dangling_delete_records=dangling_delete_records,
        partition=f"created_at_day=d{day}", spec_id=0, partition_values=(("created_at_day", day),), last_commit_ms=None,
        partition_sources=(("created_at", "day"),))


def table(*partitions: PartitionHealth, data_manifests: int = 3) -> TableHealth:
    fields = {f.name: 0 for f in dataclasses.fields(FileFigures)}
    fields["dangling_delete_files"] = sum(p.dangling_delete_files for p in partitions)
    return TableHealth(**fields, table="lakeops.orders", evaluated_at_ms=0, snapshot_id=1, format_version=2,
                       target_file_size_bytes=128 * MB, small_file_threshold_bytes=96 * MB, growth_window_hours=1.0,
                       snapshots=5, data_manifests=data_manifests, delete_manifests=1, last_commit_ms=None,
                       last_commit_age_s=None, partitions=partitions)


def test_a_clean_table_needs_nothing():
    assert plan_table(table(part(1), part(2)), POLICY).actions == ()


def test_deleted_row_ratio_at_iceberg_threshold_rewrites_the_data_of_that_partition_only():
    deleted = part(2, delete_files=3, delete_records=120_000, delete_bytes=3 * MB)  # 30% of rows deleted
    below = part(3, delete_files=3, delete_records=119_000, delete_bytes=3 * MB)    # 29.75%
    [action] = plan_table(table(part(1), deleted, below), POLICY).actions

    assert action.kind == REWRITE_DATA and action.partition == "created_at_day=d2"
    assert action.where == ("(`created_at` >= TIMESTAMP '1970-01-03T00:00:00+00:00' "
                            "AND `created_at` < TIMESTAMP '1970-01-04T00:00:00+00:00')")
    assert action.reason == "deletes: 120000 deleted of 400000 rows (30%) >= delete_ratio_threshold 30%"
    assert action.strategy == "binpack" and action.sort_order is None
    assert action.input_files == 4 and action.input_delete_files == 3 and action.input_bytes == 403 * MB
    assert action.expected_files_after == 3  # 280 MB live / 128 MB target
    assert action.expected_files_saved == 4
    assert "partial-progress.enabled" not in action.options  # one commit first: partial_progress on_conflict
    assert action.retry_options == {**action.options, "partial-progress.enabled": "true", "partial-progress.max-commits": "3"}
    assert action.options["delete-file-threshold"] == "10"
    assert action.options["target-file-size-bytes"] == str(128 * MB)
    assert action.options["max-concurrent-file-group-rewrites"] == "2"
    assert action.options["remove-dangling-deletes"] == "false"  # the run's own action drops them (_dangling_action)


def test_partial_progress_always_uses_it_from_the_first_attempt():
    deleted = part(2, delete_files=3, delete_records=120_000, delete_bytes=3 * MB)
    policy = dataclasses.replace(POLICY, partial_progress="always", max_commits_per_call=5)
    piled = part(3, delete_files=12, delete_records=1_000, delete_bytes=12 * MB)  # rule 4: a position-delete rewrite
    actions = plan_table(table(part(1), deleted, piled), policy).actions

    assert [a.kind for a in actions] == [REWRITE_DATA, REWRITE_DELETES]
    for a in actions:
        assert a.options == a.retry_options
        assert (a.options["partial-progress.enabled"], a.options["partial-progress.max-commits"]) == ("true", "5")


def test_amoro_fragments_trigger_at_twelve_files_under_target_over_eight():
    fragments = part(1, data_files=12, data_bytes=12 * 15 * MB, small_files=12, small_file_bytes=12 * 15 * MB)  # 15 < 16 MB
    not_fragments = part(2, data_files=12, data_bytes=12 * 17 * MB, small_files=12, small_file_bytes=12 * 17 * MB)
    eleven = part(3, data_files=11, data_bytes=11 * MB, small_files=11, small_file_bytes=11 * MB)
    [action] = plan_table(table(fragments, not_fragments, eleven), POLICY).actions

    assert action.partition == "created_at_day=d1" and action.kind == REWRITE_DATA
    assert action.reason.startswith("fragments: 12 small files averaging 15.00 MB, under target/8 = 16.0 MB")
    assert action.expected_files_after == 2  # 180 MB / 128 MB


def test_glue_rule_fires_above_a_hundred_small_files():
    hundred = part(1, data_files=100, data_bytes=100 * 90 * MB, small_files=100, small_file_bytes=100 * 90 * MB)
    many = part(2, data_files=101, data_bytes=101 * 90 * MB, small_files=101, small_file_bytes=101 * 90 * MB)
    [action] = plan_table(table(hundred, many), POLICY).actions

    assert action.partition == "created_at_day=d2"
    assert action.reason == "small files: 101 files under 75% of the 128 MB target > min_small_files 100"


def test_many_delete_files_under_the_ratio_get_a_position_delete_rewrite():
    piled = part(1, data_files=4, delete_files=12, delete_records=1_000, delete_bytes=12 * MB)
    [action] = plan_table(table(piled), POLICY).actions

    assert action.kind == REWRITE_DELETES and action.strategy is None
    assert action.input_delete_files == 12 and action.expected_delete_files_after == 4
    assert action.expected_files_saved == 8 and action.input_bytes == 12 * MB
    assert action.expected_read_amp_after == 2.0


def test_delete_files_per_data_file_at_threshold_rewrite_data():
    per_file = part(1, data_files=2, delete_files=20, delete_records=100, delete_bytes=MB)
    [action] = plan_table(table(per_file), POLICY).actions
    assert action.kind == REWRITE_DATA
    assert action.reason == "deletes: 10.0 delete files per data file >= delete_file_threshold 10"


def test_zonemap_columns_make_a_sort_rewrite():
    fragments = part(1, data_files=12, data_bytes=12 * MB, small_files=12, small_file_bytes=12 * MB)
    [one] = plan_table(table(fragments), POLICY, sort_columns=("user_id",)).actions
    [many] = plan_table(table(fragments), POLICY, sort_columns=("a", "b", "c", "d")).actions
    assert (one.strategy, one.sort_order) == ("sort", "user_id")
    assert (many.strategy, many.sort_order) == ("sort", "zorder(a, b, c)")


def test_byte_budget_takes_the_best_gain_first_and_defers_the_rest():
    policy = dataclasses.replace(POLICY, max_bytes_per_run_mb=500)
    big_gain = part(1, data_files=200, data_bytes=200 * 2 * MB, small_files=200, small_file_bytes=400 * MB)  # 400 MB, saves 196
    small_gain = part(2, data_files=12, data_bytes=12 * MB, small_files=12, small_file_bytes=12 * MB)        # 12 MB, saves 11
    too_big = part(3, data_files=150, data_bytes=150 * 5 * MB, small_files=150, small_file_bytes=750 * MB)  # 750 MB
    plan = plan_table(table(small_gain, too_big, big_gain), policy)

    assert [a.partition for a in plan.selected] == ["created_at_day=d1", "created_at_day=d2"]
    [call] = plan.actions  # one procedure call over both partitions
    assert call.partitions == ("created_at_day=d1", "created_at_day=d2") and call.partition == "2 partitions"
    assert plan.planned_bytes == 412 * MB <= plan.budget_bytes == 500 * MB
    assert [a.partition for a in plan.deferred] == ["created_at_day=d3"]


def test_manifest_rewrite_when_over_threshold_and_outside_the_budget():
    actions = plan_table(table(part(1), data_manifests=101), POLICY).actions
    assert [(a.kind, a.partition, a.where, a.input_files, a.expected_files_after) for a in actions] == [
        (REWRITE_MANIFESTS, "", None, 101, 1)]
    assert plan_table(table(part(1), data_manifests=100), POLICY).actions == ()


def test_a_partition_whose_source_column_is_gone_is_deferred_with_the_reason():
    fragments = dataclasses.replace(part(1, data_files=12, data_bytes=12 * MB, small_files=12, small_file_bytes=12 * MB),
                                    partition_sources=(("", "day"),))
    plan = plan_table(table(fragments), POLICY)
    assert plan.actions == ()
    assert plan.deferred[0].skipped
    assert plan.deferred[0].reason.startswith("partition field 'created_at_day' reads a column the table's schema")


def test_policy_refuses_a_fragment_size_not_below_the_small_file_size():
    with pytest.raises(ConfigError, match=r"compaction.fragment_fraction: 0.8 must be in \(0, small_file_fraction 0.75\)"):
        CompactionPolicy(fragment_fraction=0.8)


def _compacted(day: int) -> PartitionHealth:
    return part(day, data_files=1, data_records=10_000, data_bytes=MB, small_files=1, small_file_bytes=MB)


def _churned(day: int, data_files: int, applied_deletes: int) -> PartitionHealth:
    p = part(day, data_files=data_files, data_records=10_000, data_bytes=MB, small_files=data_files,
             small_file_bytes=MB, delete_files=applied_deletes, delete_records=applied_deletes,
             delete_bytes=applied_deletes * 1000)
    return dataclasses.replace(p, read_amp_files=(data_files + applied_deletes) / data_files)


def test_file_amplification_folds_every_partition_a_rewrite_shrinks_in_one_call():
    policy = CompactionPolicy()  # max_file_amplification 1.5
    hot, warm, tail = _churned(10, 7, 2), _churned(9, 3, 1), _churned(3, 2, 0)
    # scanned 9 + 4 + 2 + 7 compacted partitions = 22 files, compacted 10: 2.2 >= 1.5 and 12 more files (Amoro's 12)
    plan = plan_table(table(hot, warm, tail, *[_compacted(d) for d in range(11, 18)]), policy)

    assert [a.partition for a in plan.selected] == ["created_at_day=d10", "created_at_day=d9", "created_at_day=d3"]
    assert plan.selected[0].reason == ("file amplification: a full scan opens 22 files where a compacted copy opens 10 "
                                       "(2.20 >= max_file_amplification 1.5); this partition saves 8")
    assert plan.selected[2].reason.endswith("this partition saves 1")
    [call] = plan.actions
    assert call.kind == REWRITE_DATA and call.partitions == ("created_at_day=d10", "created_at_day=d9", "created_at_day=d3")
    assert call.options["min-input-files"] == "1" and call.options["use-starting-sequence-number"] == "false"
    assert call.retry_options["partial-progress.max-commits"] == "3"
    assert call.expected_files_after == 3


def test_file_amplification_under_the_threshold_or_the_floor_plans_nothing():
    hot, warm, tail = _churned(10, 7, 2), _churned(9, 3, 1), _churned(3, 2, 0)
    others = [_compacted(d) for d in range(11, 18)]
    assert plan_table(table(hot, warm, tail, *others), CompactionPolicy(max_file_amplification=2.3)).actions == ()
    # 2.2x but 11 files to save, under Amoro's 12: a small table is not rewritten for a handful of files
    smaller_hot = _churned(10, 6, 2)
    assert plan_table(table(smaller_hot, warm, tail, *others[:5]), CompactionPolicy()).actions == ()


def test_a_partition_over_its_own_rule_keeps_its_reason():
    policy = CompactionPolicy(min_fragment_files=6)
    hot, warm, tail = _churned(10, 7, 2), _churned(9, 3, 1), _churned(3, 2, 0)
    plan = plan_table(table(hot, warm, tail, *[_compacted(d) for d in range(11, 18)]), policy)
    assert [(a.partition, a.reason.split(":")[0]) for a in plan.selected] == [
        ("created_at_day=d10", "fragments"), ("created_at_day=d9", "file amplification"),
        ("created_at_day=d3", "file amplification")]


def test_equality_deletes_keep_the_starting_sequence_number_and_no_rewrite_needs_a_clean_up():
    all_small = _churned(10, 6, 2)
    big_file_stays = dataclasses.replace(_churned(9, 6, 2), small_files=5)  # one file at or above the small-file size
    equality = dataclasses.replace(_churned(8, 6, 2), equality_delete_files=1)
    policy = dataclasses.replace(POLICY, delete_ratio_threshold=0.0001)  # every partition's deletes call for a rewrite
    plan = plan_table(table(all_small, big_file_stays, equality), policy)
    data = {a.partition: a.options["use-starting-sequence-number"] for a in plan.selected}
    assert data == {"created_at_day=d10": "false", "created_at_day=d9": "false", "created_at_day=d8": "true"}
    # The delete files the rewrites leave naming replaced files are dangling: the drop finds them, no rewrite of them.
    assert [a.kind for a in plan.actions] == [REWRITE_DATA, REWRITE_DATA]  # d8 keeps its own options


def _dangling(day: int, dangling: int) -> PartitionHealth:
    """A compacted partition still holding the delete files of the files a rewrite replaced."""
    return part(day, data_files=1, data_records=10_000, data_bytes=MB, small_files=1, small_file_bytes=MB,
                delete_files=dangling, delete_records=5000, delete_bytes=dangling * 1000,
                dangling_delete_files=dangling, dangling_delete_records=5000)


def test_dangling_delete_files_fire_no_delete_rule():
    # 50% of the rows and 40 files per data file, all in delete files that no longer apply.
    assert plan_table(table(_dangling(1, 40)), POLICY).actions == ()


def test_a_run_drops_dangling_deletes_after_its_rewrites_once_the_table_holds_max_dangling_delete_files():
    deleted = part(2, delete_files=3, delete_records=150_000, delete_bytes=3 * MB)
    below = plan_table(table(deleted, _dangling(1, 96)), POLICY)  # 96 + 3 < 100
    assert [a.kind for a in below.actions] == [REWRITE_DATA]
    at = plan_table(table(deleted, _dangling(1, 100), data_manifests=101), POLICY)
    assert [a.kind for a in at.actions] == [REWRITE_DATA, REMOVE_DANGLING, REWRITE_MANIFESTS]
    drop = at.actions[1]
    assert (drop.partition, drop.where, drop.input_bytes, drop.input_delete_files, drop.expected_files_saved) == (
        "", None, 0, 100, 100)
    assert drop.reason == "dangling delete files: 100 + up to 3 this run's rewrites leave >= max_dangling_delete_files 100"
    assert at.actions[0].options["remove-dangling-deletes"] == "false"


def test_a_run_counts_the_delete_files_its_rewrites_leave_dangling_towards_the_limit():
    # 3 applied delete files in d2 name files its rewrite replaces: 97 + 3 reach 100 in this run, not the next.
    deleted = part(2, delete_files=3, delete_records=150_000, delete_bytes=3 * MB)
    reached = plan_table(table(deleted, _dangling(1, 97)), POLICY)
    assert [a.kind for a in reached.actions] == [REWRITE_DATA, REMOVE_DANGLING]
    assert reached.actions[1].reason == ("dangling delete files: 97 + up to 3 this run's rewrites leave >= "
                                         "max_dangling_delete_files 100")
    assert [a.kind for a in plan_table(table(deleted, _dangling(1, 96)), POLICY).actions] == [REWRITE_DATA]
    # Equality deletes go on applying to the rewritten rows' keys: a rewrite leaves none of them dangling.
    equality = dataclasses.replace(deleted, equality_delete_files=3)
    assert [a.kind for a in plan_table(table(equality, _dangling(1, 97)), POLICY).actions] == [REWRITE_DATA]
    # Only the partitions the run rewrites count: d3's delete files stay applied, under the rules.
    untouched = part(3, delete_files=3, delete_records=1_000, delete_bytes=3 * MB)
    assert [a.kind for a in plan_table(table(untouched, _dangling(1, 97)), POLICY).actions] == []


def test_max_dangling_delete_files_zero_drops_what_each_data_rewrite_leaves():
    deleted = part(2, delete_files=3, delete_records=150_000, delete_bytes=3 * MB)
    every_run = plan_table(table(deleted), dataclasses.replace(POLICY, max_dangling_delete_files=0))
    assert [a.kind for a in every_run.actions] == [REWRITE_DATA, REMOVE_DANGLING]
    piled = part(3, delete_files=12, delete_records=1_000, delete_bytes=12 * MB)  # a position-delete rewrite leaves none
    zero = dataclasses.replace(POLICY, max_dangling_delete_files=0)
    assert [a.kind for a in plan_table(table(piled), zero).actions] == [REWRITE_DELETES]


def test_dangling_deletes_over_the_limit_are_dropped_by_a_run_without_a_data_rewrite():
    many_deletes = part(3, delete_files=10, delete_records=10, delete_bytes=10_000)  # rule 4: its own delete rewrite
    plan = plan_table(table(many_deletes, _dangling(1, 60), _dangling(2, 40), part(4)), POLICY)
    assert [(a.kind, a.partition) for a in plan.actions] == [(REWRITE_DELETES, "created_at_day=d3"), (REMOVE_DANGLING, "")]
    assert [a.kind for a in plan_table(table(_dangling(1, 60), _dangling(2, 40)), POLICY).actions] == [REMOVE_DANGLING]
    assert plan_table(table(_dangling(1, 60), _dangling(2, 39)), POLICY).actions == ()


def test_policy_refuses_a_negative_dangling_delete_limit():
    with pytest.raises(ConfigError, match=r"compaction.max_dangling_delete_files: -1 must be 0 or more"):
        CompactionPolicy(max_dangling_delete_files=-1)
