"""When micro zonemaps are consolidated by load, and the thresholds' validation: literal values."""

from __future__ import annotations

import pytest

from lakeops.config.policies import ZonemapConfig
from lakeops.exceptions import ConfigError
from lakeops.zonemap.load import MIB, consolidation_due

CONFIG = ZonemapConfig(columns=("user_id",), consolidate_micro_files=3, consolidate_micro_mb=2)


def test_count_or_bytes_past_the_threshold_consolidate():
    assert consolidation_due([100, 100], CONFIG) is None
    assert "consolidate_micro_files (3)" in (consolidation_due([100] * 3, CONFIG) or "")
    assert "consolidate_micro_mb (2)" in (consolidation_due([MIB, MIB], CONFIG) or "")


@pytest.mark.parametrize("setting", [{"consolidate_micro_files": 0}, {"consolidate_micro_mb": True},
                                     {"consolidate_micro_files": "200"}, {"consolidate_micro_mb": 70_000}])
def test_thresholds_are_validated_naming_the_setting(setting):
    name = next(iter(setting))
    with pytest.raises(ConfigError, match=f"zonemap.{name}: .* must be a whole number between 1 and"):
        ZonemapConfig(**setting)
