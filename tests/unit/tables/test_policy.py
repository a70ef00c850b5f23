"""Where each setting comes from: code default < config defaults < table properties < config entry, on literals."""

from __future__ import annotations

import pytest

from lakeops.config import build_table
from lakeops.exceptions import ConfigError
from lakeops.tables.identifier import TableId
from lakeops.tables.policy import property_name

ORDERS = TableId(("sales",), "orders")


def test_property_names_follow_the_setting():
    assert property_name("compaction.delete_ratio_threshold") == "lakeops.compaction.delete-ratio-threshold"
    assert property_name("freshness_sla_minutes") == "lakeops.freshness-sla-minutes"


def test_each_layer_overrides_the_one_below_and_says_so():
    defaults = {"compaction": {"delete_ratio_threshold": 0.25, "min_small_files": 50}, "freshness_sla_minutes": 45}
    properties = {"lakeops.compaction.min-small-files": "20", "lakeops.compaction.delete-ratio-threshold": "0.2"}
    entry = {"compaction": {"delete_ratio_threshold": 0.1}}
    table = build_table(ORDERS, entry, defaults, properties)
    assert table.compaction.delete_ratio_threshold == 0.1
    assert table.compaction.min_small_files == 20
    assert table.freshness_sla_minutes == 45
    assert table.compaction.delete_file_threshold == 10
    origins = {k: str(v) for k, v in table.origins.items()}
    assert origins["compaction.delete_ratio_threshold"] == "config table (tables.sales.orders.compaction.delete_ratio_threshold)"
    assert origins["compaction.min_small_files"] == "table property (lakeops.compaction.min-small-files = 20)"
    assert origins["freshness_sla_minutes"] == "config defaults (defaults.freshness_sla_minutes)"
    assert origins["compaction.delete_file_threshold"] == "default"


def test_icebergs_own_properties_carry_their_settings_in_the_safe_direction():
    properties = {"write.target-file-size-bytes": str(512 * 1024 * 1024 + 1), "history.expire.max-snapshot-age-ms": "5400000",
                  "history.expire.min-snapshots-to-keep": "7"}
    table = build_table(ORDERS, {}, {}, properties)
    assert table.compaction.target_file_size_mb == 513  # up to whole MiB
    assert table.retention.max_snapshot_age_hours == 2  # 1.5 h kept 2 h
    assert table.retention.min_snapshots == 7
    assert str(table.origins["retention.min_snapshots"]) == "table property (history.expire.min-snapshots-to-keep = 7)"


def test_a_lakeops_property_beats_icebergs_key_for_the_same_setting():
    table = build_table(ORDERS, {}, {}, {"write.target-file-size-bytes": "1048576",
                                         "lakeops.compaction.target-file-size-mb": "64"})
    assert table.compaction.target_file_size_mb == 64


def test_list_and_optional_settings_from_properties():
    table = build_table(ORDERS, {}, {}, {"lakeops.zonemap.columns": "ts, account_id",
                                         "lakeops.zonemap.bloom-columns": "account_id",
                                         "lakeops.compaction.max-file-amplification": "none",
                                         "lakeops.compaction.trigger": "schedule"})
    assert table.zonemap.columns == ("ts", "account_id") and table.zonemap.bloom_columns == ("account_id",)
    assert table.compaction.max_file_amplification is None
    assert table.compaction.trigger == "schedule"


@pytest.mark.parametrize(("properties", "message"), [
    ({"lakeops.compaction.min-small-files": "many"},
     "property lakeops.compaction.min-small-files: 'many' must be a whole number"),
    ({"lakeops.compaction.delete-ratio-thresold": "0.2"},
     "is not a lakeops setting; did you mean lakeops.compaction.delete-ratio-threshold?"),
    ({"write.target-file-size-bytes": "big"}, "property write.target-file-size-bytes = 'big' is not a whole number"),
    ({"lakeops.retention.orphan-min-age-hours": "1"}, "is shorter than the safe minimum of 24 hours"),
])
def test_bad_properties_are_named_with_the_fix(properties, message):
    with pytest.raises(ConfigError) as info:
        build_table(ORDERS, {}, {}, properties)
    assert message in str(info.value)
    assert "TBLPROPERTIES" in str(info.value)


def test_lakeops_own_summary_keys_and_other_engines_properties_are_ignored():
    table = build_table(ORDERS, {}, {}, {"write.format.default": "parquet", "owner": "flink", "lakeops.batch-id": "x"})
    assert table.compaction.target_file_size_mb == 128


def test_with_properties_keeps_the_entry_and_the_defaults():
    table = build_table(ORDERS, {"retention": {"min_snapshots": 3}}, {"retention": {"max_snapshot_age_hours": 48}})
    tuned = table.with_properties({"history.expire.min-snapshots-to-keep": "9", "history.expire.max-snapshot-age-ms": "3600000"})
    assert tuned.retention.min_snapshots == 3  # the entry wins
    assert tuned.retention.max_snapshot_age_hours == 1  # the property beats the defaults


def test_the_bloom_filter_rate_is_set_by_property_and_checked():
    table = build_table(ORDERS, {"zonemap": {"columns": ["id"]}}, {}, {"lakeops.zonemap.bloom-fpp": "0.0001"})
    assert table.zonemap.bloom_fpp == 0.0001
    assert build_table(ORDERS, {}, {}, {}).zonemap.bloom_fpp == 0.00005
    with pytest.raises(ConfigError, match=r"zonemap.bloom_fpp: 0.5 must be a false-positive rate between 0.000001 and 0.1"):
        build_table(ORDERS, {"zonemap": {"bloom_fpp": 0.5}}, {}, {})
