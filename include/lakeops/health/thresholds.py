"""Which partitions are over a health threshold: pure functions of computed figures.

Each breach is a plain dict (it travels through XCom and trigger events):
{"partition", "spec_id", "partition_values", "metric", "value", "threshold"}; a breach of the
whole table (file amplification) has partition "" and no partition values.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lakeops.config import CompactionPolicy, HealthThresholds
from lakeops.health.layout import over_file_amplification
from lakeops.health.model import PartitionHealth

READ_AMPLIFICATION = "read_amplification"
DELETE_GROWTH = "delete_growth"
SMALL_FILES = "small_files"
CHECKS = (READ_AMPLIFICATION, DELETE_GROWTH, SMALL_FILES)


def _plain(value: Any) -> Any:
    return value if value is None or isinstance(value, (bool, int, float, str)) else str(value)


def _breach(p: PartitionHealth, metric: str, value: float, threshold: float) -> dict[str, Any]:
    return {"partition": p.partition, "spec_id": p.spec_id,
            "partition_values": [[name, _plain(v)] for name, v in p.partition_values],
            "metric": metric, "value": round(float(value), 6), "threshold": float(threshold)}


def over_read_amplification(partitions: Iterable[PartitionHealth], max_files: float | None,
                            max_bytes: float | None, max_file_amp: float | None = None,
                            target_bytes: int | None = None, min_excess_files: int = 1) -> list[dict[str, Any]]:
    """Partitions whose scan opens at least max_files files per data file, or reads at least
    max_bytes bytes per live byte; and the whole table when a full scan opens at least
    max_file_amp times the files of a compacted copy, and min_excess_files more
    (lakeops.health.layout; needs the target file size). A None threshold is not checked."""
    partitions = list(partitions)
    found = []
    for p in partitions:
        if max_files is not None and p.read_amp_files >= max_files:
            found.append(_breach(p, "read_amp_files", p.read_amp_files, max_files))
        elif max_bytes is not None and p.read_amp_bytes >= max_bytes:
            found.append(_breach(p, "read_amp_bytes", p.read_amp_bytes, max_bytes))
    if max_file_amp is not None and target_bytes:
        over = over_file_amplification(partitions, target_bytes, max_file_amp, int(min_excess_files))
        if over:
            found.append({"partition": "", "spec_id": None, "partition_values": [], "metric": "file_amplification",
                          "value": round(over[0] / over[1], 6), "threshold": float(max_file_amp)})
    return found


def over_delete_growth(partitions: Iterable[PartitionHealth], max_per_hour: float) -> list[dict[str, Any]]:
    """Partitions that gained at least max_per_hour live delete files per hour over the window."""
    return [_breach(p, "delete_files_added_per_hour", p.delete_files_added_per_hour, max_per_hour)
            for p in partitions if p.delete_files_added_per_hour >= max_per_hour]


def over_small_files(partitions: Iterable[PartitionHealth], min_small_files: int) -> list[dict[str, Any]]:
    """Partitions holding at least min_small_files data files below the small-file size."""
    return [_breach(p, "small_files", p.small_files, min_small_files)
            for p in partitions if p.small_files >= min_small_files]


def bytes_threshold(thresholds: HealthThresholds, policy: CompactionPolicy) -> float:
    """max_read_amp_bytes, or the figure at which delete_ratio_threshold of the rows are deleted."""
    if thresholds.max_read_amp_bytes is not None:
        return thresholds.max_read_amp_bytes
    return 1.0 / (1.0 - policy.delete_ratio_threshold) if policy.delete_ratio_threshold < 1 else float("inf")


def default_thresholds(check: str, thresholds: HealthThresholds, policy: CompactionPolicy) -> dict[str, float | None]:
    """A check's thresholds from a table's config: the keyword arguments of breaches()."""
    if check == READ_AMPLIFICATION:
        return {"max_files": thresholds.max_read_amp_files, "max_bytes": bytes_threshold(thresholds, policy),
                "max_file_amp": policy.max_file_amplification, "min_excess_files": float(policy.min_fragment_files)}
    if check == DELETE_GROWTH:
        return {"max_per_hour": thresholds.max_delete_files_per_hour}
    if check == SMALL_FILES:
        return {"min_small_files": float(policy.min_small_files)}
    raise ValueError(f"check {check!r} is unknown; use one of {', '.join(CHECKS)}")


def breaches(check: str, partitions: Iterable[PartitionHealth], *, target_bytes: int | None = None,
             **limits: Any) -> list[dict[str, Any]]:
    """What is over the `check` thresholds; target_bytes (the table's target file size) lets the
    read-amplification check weigh the whole table's layout too."""
    if check == READ_AMPLIFICATION:
        return over_read_amplification(partitions, limits.get("max_files"), limits.get("max_bytes"),
                                       limits.get("max_file_amp"), target_bytes, int(limits.get("min_excess_files", 1)))
    if check == DELETE_GROWTH:
        return over_delete_growth(partitions, float(limits["max_per_hour"]))
    if check == SMALL_FILES:
        return over_small_files(partitions, int(limits["min_small_files"]))
    raise ValueError(f"check {check!r} is unknown; use one of {', '.join(CHECKS)}")
