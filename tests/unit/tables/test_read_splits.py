"""A staged read of a few small files is spread over the cores; one the table's packing spreads already is left."""

from __future__ import annotations

import pytest

from lakeops.tables.read_splits import ReadSplits, spread_splits

MB = 1024 * 1024


def test_a_read_packed_into_one_task_gets_one_split_per_core():
    # Two appended files of 5 MB and 3 MB: Iceberg's 128 MB split packs them into one task.
    assert spread_splits(8 * MB, default_groups=1, cores=2, open_cost=4 * MB) == ReadSplits(4 * MB, MB // 2)


def test_the_open_cost_stays_below_an_eighth_of_a_split_so_small_files_share_tasks():
    splits = spread_splits(100 * MB, default_groups=3, cores=8, open_cost=4 * MB)
    assert splits == ReadSplits(-(-100 * MB // 8), -(-100 * MB // 8) // 8)
    assert spread_splits(800 * MB, default_groups=3, cores=8, open_cost=4 * MB) == ReadSplits(100 * MB, 4 * MB)


@pytest.mark.parametrize(("total", "groups", "cores"), [
    (300 * MB, 3, 2),  # the table's packing gives each core a task already
    (8 * MB, 1, 1),  # one core: nothing to spread over
    (1, 1, 2),  # less than a byte per core
])
def test_a_read_that_needs_no_spreading_is_left_to_the_table(total, groups, cores):
    assert spread_splits(total, groups, cores, 4 * MB) is None
