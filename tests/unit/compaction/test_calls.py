"""merge_calls against literal actions: one procedure call per kind and options, in run order."""

from __future__ import annotations

from lakeops.compaction.calls import merge_calls
from lakeops.compaction.model import REMOVE_DANGLING, REWRITE_DATA, REWRITE_DELETES, REWRITE_MANIFESTS, CompactionAction
from lakeops.spark.compact import procedure_sql

D1 = "created_at >= TIMESTAMP '2026-11-21 00:00:00' AND created_at < TIMESTAMP '2026-11-22 00:00:00'"
D2 = "created_at >= TIMESTAMP '2026-11-20 00:00:00' AND created_at < TIMESTAMP '2026-11-21 00:00:00'"
OPTIONS = {"partial-progress.enabled": "true", "min-input-files": "1"}


def data(partition: str, where: str, **kw) -> CompactionAction:
    return CompactionAction(REWRITE_DATA, partition, where, f"why {partition}", strategy="binpack",
                            options=kw.pop("options", OPTIONS), **kw)


def test_data_rewrites_of_several_partitions_become_one_call_oring_their_predicates():
    a = data("d=21", f"({D1})", input_files=5, input_delete_files=2, input_bytes=100, expected_files_after=1)
    b = data("d=20", f"({D2})", input_files=3, input_bytes=50, expected_files_after=1)
    [call] = merge_calls([a, b])

    assert call.kind == REWRITE_DATA and call.partition == "2 partitions" and call.partitions == ("d=21", "d=20")
    assert call.where == f"(({D1})) OR (({D2}))"
    assert call.reason == "d=21: why d=21; d=20: why d=20"
    assert (call.input_files, call.input_delete_files, call.input_bytes) == (8, 2, 150)
    assert (call.expected_files_after, call.expected_files_saved) == (2, 8)
    assert call.options == OPTIONS and call.strategy == "binpack"
    assert procedure_sql("c", "c.n.orders", call).endswith(
        "where => '((created_at >= TIMESTAMP \\'2026-11-21 00:00:00\\' AND created_at < TIMESTAMP \\'2026-11-22 00:00:00\\')) "
        "OR ((created_at >= TIMESTAMP \\'2026-11-20 00:00:00\\' AND created_at < TIMESTAMP \\'2026-11-21 00:00:00\\'))')")


def test_a_single_partition_stays_as_it_was():
    a = data("d=21", f"({D1})")
    assert merge_calls([a]) == (a,)


def test_calls_run_data_first_then_position_deletes_then_the_dangling_drop_then_manifests():
    manifests = CompactionAction(REWRITE_MANIFESTS, "", None, "manifests")
    drop = CompactionAction(REMOVE_DANGLING, "", None, "dangling delete files")
    more_deletes = CompactionAction(REWRITE_DELETES, "d=21", f"({D1})", "delete files")
    deletes_only = CompactionAction(REWRITE_DELETES, "d=19", "(x)", "delete files")
    calls = merge_calls([manifests, drop, deletes_only, data("d=21", f"({D1})"), more_deletes])

    assert [c.kind for c in calls] == [REWRITE_DATA, REWRITE_DELETES, REMOVE_DANGLING, REWRITE_MANIFESTS]
    assert calls[1].partitions == ("d=19", "d=21") and calls[1].where == f"((x)) OR (({D1}))"


def test_other_options_or_strategies_make_separate_calls():
    keep_sequence = data("d=20", f"({D2})", options={**OPTIONS, "use-starting-sequence-number": "true"})
    sort = CompactionAction(REWRITE_DATA, "d=19", "(x)", "why", strategy="sort", sort_order="user_id", options=OPTIONS)
    calls = merge_calls([data("d=21", f"({D1})"), keep_sequence, sort])
    assert [(c.partition, c.strategy) for c in calls] == [("d=21", "binpack"), ("d=20", "binpack"), ("d=19", "sort")]


def test_a_whole_table_member_makes_the_call_whole_table():
    [call] = merge_calls([data("", None), data("d=21", f"({D1})")])
    assert call.where is None
