"""Scan files, compacted files and file amplification against literal figures."""

from __future__ import annotations

import dataclasses

import pytest

from lakeops.health.layout import compacted_files, excess_files, file_amplification, scan_files
from lakeops.health.model import FileFigures

MB = 1024 * 1024
TARGET = 128 * MB
ZERO = {f.name: 0 for f in dataclasses.fields(FileFigures)}


def figures(**values: float) -> FileFigures:
    return FileFigures(**(ZERO | {"read_amp_files": 1.0, "read_amp_bytes": 1.0} | values))


def test_scan_files_count_data_files_and_the_delete_files_that_apply():
    assert scan_files(figures(data_files=4, read_amp_files=1.5)) == 6
    assert scan_files(figures()) == 0


@pytest.mark.parametrize(("values", "compacted"), [
    ({"data_files": 9, "data_records": 900, "data_bytes": 300 * MB}, 3),                          # 300 MB / 128 MB
    ({"data_files": 9, "data_records": 900, "delete_records": 450, "data_bytes": 300 * MB}, 2),   # half deleted: 150 MB
    ({"data_files": 5, "data_records": 50, "data_bytes": MB}, 1),                                 # at least one file
    ({"data_files": 2, "data_records": 20, "delete_records": 20, "data_bytes": MB}, 0),           # every row deleted
    ({}, 0),
])
def test_compacted_files(values, compacted):
    assert compacted_files(figures(**values), TARGET) == compacted


def test_excess_and_table_amplification():
    clean = figures(data_files=1, data_records=10, data_bytes=MB)
    churned = figures(data_files=6, data_records=60, data_bytes=6 * MB, read_amp_files=8 / 6, delete_records=2)
    assert excess_files(clean, TARGET) == 0 and excess_files(churned, TARGET) == 7
    assert file_amplification([clean, clean, churned], TARGET) == pytest.approx(10 / 3)
    assert file_amplification([], TARGET) == 1.0
