"""Plan a compaction from health metrics and the table's policy: pure (no Spark, no I/O).

Per partition, the first rule that fires decides the rewrite: deletes (delete ratio or delete files
per data file over the policy's thresholds), fragments, or small files -> rewrite_data_files; delete
files alone -> rewrite_position_delete_files. For the whole table: file amplification over
max_file_amplification -> rewrite_data_files of the partitions that shrink most; dangling delete
files over max_dangling_delete_files -> their drop; data manifests over manifest_rewrite_threshold
-> rewrite_manifests. Partitions are taken by expected gain within the per-run byte budget, the
rest deferred, and merged into one procedure call per kind of rewrite (lakeops.compaction.calls).
"""

from __future__ import annotations

from lakeops.compaction.calls import merge_calls
from lakeops.compaction.model import (
    REMOVE_DANGLING,
    REWRITE_DATA,
    REWRITE_DELETES,
    REWRITE_MANIFESTS,
    CompactionAction,
    CompactionPlan,
)
from lakeops.compaction.where import partition_where
from lakeops.config import CompactionPolicy, TableConfig
from lakeops.exceptions import ConfigError
from lakeops.health.layout import compacted_files, excess_files, over_file_amplification
from lakeops.health.model import PartitionHealth, TableHealth

__all__ = ["REMOVE_DANGLING", "REWRITE_DATA", "REWRITE_DELETES", "REWRITE_MANIFESTS", "CompactionAction",
           "CompactionPlan", "data_rewrite_options", "plan_configured", "plan_table"]

MB = 1024 * 1024
DELETE_REWRITE_OPTIONS = {"rewrite-all": "true"}
"""rewrite_position_delete_files of the planned partitions whatever their delete files' count and size."""
SORT_COLUMNS_MAX = 3
"""Sort (z-order) by at most this many of the zonemap columns."""


def _sort_order(sort_columns: tuple[str, ...]) -> str | None:
    columns = sort_columns[:SORT_COLUMNS_MAX]
    if not columns:
        return None
    return columns[0] if len(columns) == 1 else f"zorder({', '.join(columns)})"


def _attempt_options(options: dict[str, str], policy: CompactionPolicy) -> tuple[dict[str, str], dict[str, str]]:
    """(first attempt's options, the retries' options) of a rewrite call: the retries use Iceberg's partial
    progress (up to max_commits_per_call commits); the first attempt too when partial_progress is "always"."""
    retry = {**options, "partial-progress.enabled": "true",
             "partial-progress.max-commits": str(policy.max_commits_per_call)}
    return (dict(retry) if policy.partial_progress == "always" else dict(options)), retry


def data_rewrite_options(policy: CompactionPolicy, *, new_sequence_number: bool = True) -> dict[str, str]:
    """Options of Iceberg's rewrite_data_files, from the policy: every file of the planned partitions
    under the small-file size is rewritten (min-input-files 1), under a new sequence number unless
    equality deletes are about (new_sequence_number False), and dangling deletes are left to
    the run's own drop (remove-dangling-deletes false)."""
    target = policy.target_file_size_mb * MB
    return {
        "max-concurrent-file-group-rewrites": str(policy.max_concurrent_file_group_rewrites),
        "target-file-size-bytes": str(target),
        "min-file-size-bytes": str(int(target * policy.small_file_fraction)),
        "min-input-files": "1",
        "delete-file-threshold": str(policy.delete_file_threshold),
        "delete-ratio-threshold": str(policy.delete_ratio_threshold),
        "rewrite-job-order": "files-desc",
        "use-starting-sequence-number": "false" if new_sequence_number else "true",
        "remove-dangling-deletes": "false",
    }


def _delete_ratio(p: PartitionHealth) -> float:
    return p.applied_delete_records / p.data_records if p.data_records else 0.0


def _deletes_per_data_file(p: PartitionHealth) -> float:
    return p.applied_delete_files / p.data_files if p.data_files else float(p.applied_delete_files)


def _data_reason(p: PartitionHealth, policy: CompactionPolicy, target: int) -> str | None:
    ratio = _delete_ratio(p)
    if p.applied_delete_files and ratio >= policy.delete_ratio_threshold:
        return (f"deletes: {p.applied_delete_records} deleted of {p.data_records} rows ({ratio:.0%}) >= "
                f"delete_ratio_threshold {policy.delete_ratio_threshold:.0%}")
    per_data_file = _deletes_per_data_file(p)
    if p.applied_delete_files and per_data_file >= policy.delete_file_threshold:
        return (f"deletes: {per_data_file:.1f} delete files per data file >= "
                f"delete_file_threshold {policy.delete_file_threshold}")
    fragment_bytes = target * policy.fragment_fraction
    if p.small_files >= policy.min_fragment_files and p.small_file_bytes / p.small_files < fragment_bytes:
        return (f"fragments: {p.small_files} small files averaging {p.small_file_bytes / p.small_files / MB:.2f} MB, "
                f"under target/{round(1 / policy.fragment_fraction)} = {fragment_bytes / MB:.1f} MB "
                f"(min_fragment_files {policy.min_fragment_files})")
    if p.small_files > policy.min_small_files:
        return (f"small files: {p.small_files} files under {policy.small_file_fraction:.0%} of the "
                f"{policy.target_file_size_mb} MB target > min_small_files {policy.min_small_files}")
    return None


def _partition_action(p: PartitionHealth, policy: CompactionPolicy, sort_columns: tuple[str, ...]) -> CompactionAction | None:
    target = policy.target_file_size_mb * MB
    reason = _data_reason(p, policy, target)
    if reason:
        return _rewrite(p, REWRITE_DATA, reason, policy, sort_columns)
    if p.applied_delete_files >= policy.delete_file_threshold:
        return _rewrite(p, REWRITE_DELETES, f"delete files: {p.applied_delete_files} >= delete_file_threshold "
                        f"{policy.delete_file_threshold} ({_delete_ratio(p):.0%} of rows deleted, under the ratio)",
                        policy, sort_columns)
    return None


def _rewrite(p: PartitionHealth, kind: str, reason: str, policy: CompactionPolicy,
             sort_columns: tuple[str, ...]) -> CompactionAction:
    target = policy.target_file_size_mb * MB
    try:
        where = partition_where(p.partition_values, p.partition_sources)
    except ConfigError as e:
        return CompactionAction(kind, p.partition, None, str(e), skipped=True)
    if kind == REWRITE_DELETES:
        # File-scoped deletes merge into at most one delete file per data file they touch; dangling ones go.
        after = min(p.applied_delete_files, p.data_files)
        options, retry_options = _attempt_options(DELETE_REWRITE_OPTIONS, policy)
        return CompactionAction(
            kind, p.partition, where, reason, input_files=0, input_delete_files=p.delete_files,
            input_bytes=p.delete_bytes, expected_files_after=0, expected_delete_files_after=after,
            expected_read_amp_after=(p.data_files + after) / p.data_files if p.data_files else 1.0,
            options=options, retry_options=retry_options)
    sort_order = _sort_order(sort_columns)
    options, retry_options = _attempt_options(data_rewrite_options(policy, new_sequence_number=not p.equality_delete_files),
                                             policy)
    return CompactionAction(
        kind, p.partition, where, reason, strategy="sort" if sort_order else "binpack", sort_order=sort_order,
        input_files=p.data_files, input_delete_files=p.delete_files, input_bytes=p.data_bytes + p.delete_bytes,
        expected_files_after=compacted_files(p, target), expected_delete_files_after=0, expected_read_amp_after=1.0,
        options=options, retry_options=retry_options)


def _amplification_actions(metrics: TableHealth, policy: CompactionPolicy, chosen: set[str],
                           sort_columns: tuple[str, ...]) -> list[CompactionAction]:
    """When a full scan of the table opens max_file_amplification times the files of a compacted
    copy, and at least min_fragment_files more: data rewrites of every partition a rewrite would
    shrink, most files saved first, except those in `chosen` (rewritten by their own rule)."""
    if policy.max_file_amplification is None:
        return []
    target = policy.target_file_size_mb * MB
    over = over_file_amplification(metrics.partitions, target, policy.max_file_amplification, policy.min_fragment_files)
    if over is None:
        return []
    scanned, compacted = over
    why = (f"file amplification: a full scan opens {scanned} files where a compacted copy opens {compacted} "
           f"({scanned / compacted:.2f} >= max_file_amplification {policy.max_file_amplification})")
    shrinking = [p for p in metrics.partitions if p.partition not in chosen and excess_files(p, target) >= 1]
    shrinking.sort(key=lambda p: (-excess_files(p, target), p.data_bytes, p.partition))
    return [_rewrite(p, REWRITE_DATA, f"{why}; this partition saves {excess_files(p, target)}", policy, sort_columns)
            for p in shrinking]


def _left_dangling(p: PartitionHealth) -> int:
    """Delete files a data rewrite of the partition leaves dangling, at most: its applied position
    deletes and deletion vectors, which name the files the rewrite replaces (a file kept whole
    keeps its own; equality deletes go on applying)."""
    return max(0, p.applied_delete_files - p.equality_delete_files)


def _dangling_action(metrics: TableHealth, policy: CompactionPolicy,
                     selected: list[CompactionAction]) -> CompactionAction | None:
    """The drop of every dangling delete file after this run's rewrites (one commit, no Spark job), once
    the table will hold max_dangling_delete_files of them: those there now plus those the rewrites leave."""
    rewritten = {a.partition for a in selected if a.kind == REWRITE_DATA}
    left = sum(_left_dangling(p) for p in metrics.partitions if p.partition in rewritten)
    dangling, limit = metrics.dangling_delete_files, policy.max_dangling_delete_files
    if dangling + left < limit or not (dangling or rewritten):
        return None
    return CompactionAction(
        REMOVE_DANGLING, "", None,
        f"dangling delete files: {dangling} + up to {left} this run's rewrites leave >= max_dangling_delete_files {limit}",
        input_delete_files=dangling, expected_delete_files_after=0)


def _manifest_action(metrics: TableHealth, policy: CompactionPolicy) -> CompactionAction | None:
    if metrics.data_manifests <= policy.manifest_rewrite_threshold:
        return None
    return CompactionAction(
        REWRITE_MANIFESTS, "", None,
        f"manifests: {metrics.data_manifests} data manifests > manifest_rewrite_threshold {policy.manifest_rewrite_threshold}",
        input_files=metrics.data_manifests, expected_files_after=max(1, len({p.spec_id for p in metrics.partitions})))


def plan_table(metrics: TableHealth, policy: CompactionPolicy, *, sort_columns: tuple[str, ...] = ()) -> CompactionPlan:
    """Per-partition decisions within the byte budget (best expected gain first), merged into one
    procedure call per kind of rewrite; and the deferred rest."""
    candidates = [a for p in metrics.partitions if (a := _partition_action(p, policy, sort_columns))]
    candidates += _amplification_actions(metrics, policy, {a.partition for a in candidates}, sort_columns)
    runnable = [a for a in candidates if not a.skipped]
    skipped = [a for a in candidates if a.skipped]
    runnable.sort(key=lambda a: (-a.expected_files_saved, a.input_bytes, a.partition))
    budget = policy.max_bytes_per_run_mb * MB
    selected, deferred, spent = [], list(skipped), 0
    for action in runnable:
        if spent + action.input_bytes <= budget:
            selected.append(action)
            spent += action.input_bytes
        else:
            deferred.append(action)
    for extra in (_dangling_action(metrics, policy, selected), _manifest_action(metrics, policy)):
        if extra:
            selected.append(extra)  # metadata only: not charged to the data byte budget
    return CompactionPlan(metrics.table, merge_calls(selected), tuple(deferred), budget, tuple(selected))


def plan_configured(metrics: TableHealth, spec: TableConfig) -> CompactionPlan:
    """plan_table with a table's effective policy, sorting by its zonemap columns. The partitions' predicates
    come from the health figures, i.e. from the specs in the table's metadata."""
    return plan_table(metrics, spec.compaction, sort_columns=spec.zonemap.columns)
