"""Merge per-partition decisions into procedure calls: pure.

Partitions that get the same rewrite with the same options go into one call whose `where` ORs
their predicates; Iceberg still plans one file group per partition.

Calls run data rewrites first, then position-delete rewrites (the clean-up of a data rewrite must
follow it), then the drop of dangling delete files (which finds those the rewrites left), then
the manifest rewrite.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from lakeops.compaction.model import REMOVE_DANGLING, REWRITE_DATA, REWRITE_DELETES, REWRITE_MANIFESTS, CompactionAction

_ORDER = {REWRITE_DATA: 0, REWRITE_DELETES: 1, REMOVE_DANGLING: 2, REWRITE_MANIFESTS: 3}


def _call_key(action: CompactionAction) -> tuple[Any, ...]:
    return (action.kind, action.strategy, action.sort_order, tuple(sorted(action.options.items())),
            tuple(sorted(action.retry_options.items())))


def merge_group(actions: list[CompactionAction]) -> CompactionAction:
    """One call over the partitions of `actions` (same kind, strategy and options)."""
    if len(actions) == 1:
        return actions[0]
    wheres = [a.where for a in actions]
    return replace(
        actions[0],
        partition=f"{len(actions)} partitions",
        partitions=tuple(a.partition for a in actions),
        where=None if any(w is None for w in wheres) else " OR ".join(f"({w})" for w in wheres),
        reason="; ".join(f"{a.partition}: {a.reason}" for a in actions),
        input_files=sum(a.input_files for a in actions),
        input_delete_files=sum(a.input_delete_files for a in actions),
        input_bytes=sum(a.input_bytes for a in actions),
        expected_files_after=sum(a.expected_files_after for a in actions),
        expected_delete_files_after=sum(a.expected_delete_files_after for a in actions),
        expected_read_amp_after=max(a.expected_read_amp_after for a in actions),
    )


def merge_calls(selected: list[CompactionAction]) -> tuple[CompactionAction, ...]:
    """The procedure calls of a run, in the order they must run."""
    groups: dict[tuple[Any, ...], list[CompactionAction]] = {}
    for action in selected:
        groups.setdefault(_call_key(action), []).append(action)
    calls = [merge_group(group) for group in groups.values()]
    return tuple(sorted(calls, key=lambda a: _ORDER.get(a.kind, len(_ORDER))))
