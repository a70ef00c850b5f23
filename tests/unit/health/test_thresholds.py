"""Sensor threshold logic on literal figures."""

from __future__ import annotations

import dataclasses

import pytest

from lakeops.config import CompactionPolicy, HealthThresholds
from lakeops.exceptions import ConfigError
from lakeops.health.check import resolve_limits
from lakeops.health.model import FileFigures, PartitionHealth
from lakeops.health.thresholds import breaches, bytes_threshold, default_thresholds

CLEAN = {f.name: 0 for f in dataclasses.fields(FileFigures)} | {"read_amp_files": 1.0, "read_amp_bytes": 1.0}


def _p(partition: str, **figures: float) -> PartitionHealth:
    return PartitionHealth(**(CLEAN | figures), partition=partition, spec_id=0,
                           partition_values=(("created_at_day", 20413),), last_commit_ms=None)


def test_read_amplification_over_and_under():
    parts = [_p("a", read_amp_files=1.49), _p("b", read_amp_files=1.5), _p("c", read_amp_bytes=1.6), _p("d")]
    found = breaches("read_amplification", parts, max_files=1.5, max_bytes=1.43)
    assert [(b["partition"], b["metric"], b["value"]) for b in found] == [("b", "read_amp_files", 1.5),
                                                                         ("c", "read_amp_bytes", 1.6)]
    assert found[0] == {"partition": "b", "spec_id": 0, "partition_values": [["created_at_day", 20413]],
                        "metric": "read_amp_files", "value": 1.5, "threshold": 1.5}
    assert breaches("read_amplification", parts, max_files=None, max_bytes=1.7) == []


def test_delete_growth_and_small_files():
    parts = [_p("a", delete_files_added_per_hour=11.9), _p("b", delete_files_added_per_hour=12, small_files=100),
             _p("c", small_files=99)]
    assert [b["partition"] for b in breaches("delete_growth", parts, max_per_hour=12)] == ["b"]
    assert [b["partition"] for b in breaches("small_files", parts, min_small_files=100)] == ["b"]
    assert breaches("small_files", [], min_small_files=1) == []


def test_defaults_come_from_the_table_policies():
    policy = CompactionPolicy(delete_ratio_threshold=0.3, min_small_files=100)
    assert bytes_threshold(HealthThresholds(), policy) == pytest.approx(1 / 0.7)
    assert bytes_threshold(HealthThresholds(max_read_amp_bytes=2.0), policy) == 2.0
    assert default_thresholds("read_amplification", HealthThresholds(), policy) == {
        "max_files": 1.5, "max_bytes": pytest.approx(1.4286, abs=1e-4), "max_file_amp": 1.5, "min_excess_files": 12}
    assert default_thresholds("delete_growth", HealthThresholds(max_delete_files_per_hour=3), policy) == {"max_per_hour": 3}
    assert default_thresholds("small_files", HealthThresholds(), policy) == {"min_small_files": 100}
    with pytest.raises(ValueError, match="check 'colour' is unknown"):
        default_thresholds("colour", HealthThresholds(), policy)


def test_overrides_replace_config_values_and_unknown_ones_are_named(make_config):
    config = make_config({"tables": {"orders": {"ingest": {"format": "cdc"}, "key": ["order_id"],
                                                "health": {"max_read_amp_files": 3}}}})
    assert resolve_limits(config.table("orders"), "read_amplification", {"max_bytes": 2.5, "max_files": None}) == \
        {"max_files": 3.0, "max_bytes": 2.5, "max_file_amp": 1.5, "min_excess_files": 12}
    with pytest.raises(ValueError, match="threshold 'max_per_hour' does not apply to check 'read_amplification'"):
        resolve_limits(config.table("orders"), "read_amplification", {"max_per_hour": 1})


@pytest.mark.parametrize(("health", "message"), [
    ({"max_read_amp_files": 1.0}, "health.max_read_amp_files: 1.0 must be above 1.0"),
    ({"max_read_amp_bytes": 0.5}, "health.max_read_amp_bytes: 0.5 must be above 1.0"),
    ({"max_delete_files_per_hour": 0}, "health.max_delete_files_per_hour: 0.0 must be positive"),
])
def test_bad_thresholds_are_named(make_config, health, message):
    with pytest.raises(ConfigError, match=message):
        make_config({"tables": {"orders": {"ingest": {"format": "cdc"}, "key": ["order_id"], "health": health}}})


def test_whole_table_file_amplification_is_a_table_breach():
    mb = 1024 * 1024
    # Two 1-file partitions compacted, a third with 3 data files and 2 delete files: 7 files scanned for 3 compacted.
    parts = [_p("a", data_files=1, data_records=10, data_bytes=mb), _p("b", data_files=1, data_records=10, data_bytes=mb),
             _p("c", data_files=3, data_records=30, data_bytes=3 * mb, read_amp_files=5 / 3, delete_files=2,
                delete_records=3)]
    [found] = breaches("read_amplification", parts, target_bytes=128 * mb, max_files=None, max_bytes=None, max_file_amp=2.0)
    assert found == {"partition": "", "spec_id": None, "partition_values": [], "metric": "file_amplification",
                     "value": pytest.approx(7 / 3, abs=1e-6), "threshold": 2.0}
    assert breaches("read_amplification", parts, target_bytes=128 * mb, max_files=None, max_bytes=None, max_file_amp=2.4) == []
    assert breaches("read_amplification", parts, max_files=None, max_bytes=None, max_file_amp=2.0) == []  # no target: not weighed
    assert breaches("read_amplification", parts, target_bytes=128 * mb, max_files=None, max_bytes=None, max_file_amp=2.0,
                    min_excess_files=5) == []  # 4 files more than compacted: under the floor
