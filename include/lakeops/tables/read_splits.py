"""How a staged read of a few files is split over the session's cores. Iceberg bin-packs a staged task set by the
table's split size (128 MB unless the table says otherwise), so a read of a few small files, an incremental run's
newest appends say, is one Spark task on one core while the others wait. Such a read is packed to about one split per
core instead: by bytes, with the cost of opening a file lowered so that a file much smaller than a split still shares
its task with others."""

from __future__ import annotations

from dataclasses import dataclass

OPEN_COST_SHARE = 8
"""A spread read charges a file's opening at most this fraction of a split."""


@dataclass(frozen=True)
class ReadSplits:
    """The split size and file-open cost (bytes) a staged read is packed with: Iceberg's read options `split-size` and
    `file-open-cost`."""

    split_size: int
    open_cost: int


def spread_splits(total_bytes: int, default_groups: int, cores: int, open_cost: int) -> ReadSplits | None:
    """The splits that spread a read of total_bytes over the cores, or None where the table's own packing into
    default_groups tasks already gives each core one (or there is nothing to spread). open_cost: the table's."""
    if cores < 2 or default_groups >= cores or total_bytes < cores:
        return None
    split = -(-total_bytes // cores)
    return ReadSplits(split, min(open_cost, max(1, split // OPEN_COST_SHARE)))
