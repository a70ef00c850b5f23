"""A compaction plan as data: the actions (Iceberg procedure calls, and the drop of dangling delete
files) the runner executes, and why."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

REWRITE_DATA = "rewrite_data_files"
REWRITE_DELETES = "rewrite_position_delete_files"
REWRITE_MANIFESTS = "rewrite_manifests"
REMOVE_DANGLING = "remove_dangling_delete_files"
"""Not a procedure: one commit dropping the delete files that apply to no live data file (lakeops.spark.dangling)."""


@dataclass(frozen=True)
class CompactionAction:
    kind: str
    """rewrite_data_files | rewrite_position_delete_files | remove_dangling_delete_files | rewrite_manifests"""
    partition: str
    """Partition path ('created_at_day=2026-11-21'); '' for the whole table; 'N partitions' for a call over several."""
    where: str | None
    """Spark SQL predicate selecting exactly the action's partitions (None: the whole table)."""
    reason: str
    strategy: str | None = None
    """binpack | sort (data rewrites only)"""
    sort_order: str | None = None
    input_files: int = 0
    input_delete_files: int = 0
    input_bytes: int = 0
    expected_files_after: int = 0
    expected_delete_files_after: int = 0
    expected_read_amp_after: float = 1.0
    options: dict[str, str] = field(default_factory=dict)
    """The procedure's options on the first attempt."""
    retry_options: dict[str, str] = field(default_factory=dict)
    """The options of the attempts after a conflicting commit (the first attempt's with partial progress on);
    empty: the same as `options`."""
    partitions: tuple[str, ...] = ()
    """The partition paths a call over several partitions covers (empty for a single partition)."""
    skipped: bool = False
    """The partition cannot be planned (`reason` says why): the action is deferred, never run."""

    @property
    def expected_files_saved(self) -> int:
        return self.input_files + self.input_delete_files - self.expected_files_after - self.expected_delete_files_after

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "expected_files_saved": self.expected_files_saved}


@dataclass(frozen=True)
class CompactionPlan:
    table: str
    actions: tuple[CompactionAction, ...]
    deferred: tuple[CompactionAction, ...]
    """Partitions over threshold left for a later run by the byte budget."""
    budget_bytes: int
    selected: tuple[CompactionAction, ...] = ()
    """The per-partition decisions the actions were merged from: which rewrite each partition gets and why."""

    @property
    def planned_bytes(self) -> int:
        return sum(a.input_bytes for a in self.actions)

    def as_dict(self) -> dict[str, Any]:
        return {"table": self.table, "budget_bytes": self.budget_bytes, "planned_bytes": self.planned_bytes,
                "actions": [a.as_dict() for a in self.actions], "deferred": [a.as_dict() for a in self.deferred],
                "selected": [a.as_dict() for a in self.selected]}
