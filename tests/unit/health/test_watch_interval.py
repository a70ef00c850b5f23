"""health.watch_interval_seconds and watch_min_event_interval_seconds: validated in the config and handed to
the triggerer's watch of compact_on_health."""

from __future__ import annotations

import pytest

from lakeops.config import HealthConfig, parse_config
from lakeops.exceptions import ConfigError
from tests.conftest import config_data


def test_the_watch_polls_as_the_health_section_says(tmp_path):
    from lakeops_airflow.dags.compaction import table_health_asset

    data = {**config_data(tmp_path), "health": {"watch_interval_seconds": 15, "watch_min_event_interval_seconds": 120}}
    config = parse_config(data, tmp_path)

    trigger = table_health_asset(config.health).watchers[0].trigger
    assert (trigger.poke_interval, trigger.min_event_interval) == (15.0, 120.0)
    default = table_health_asset(HealthConfig()).watchers[0].trigger
    assert (default.poke_interval, default.min_event_interval) == (60.0, 300.0)


@pytest.mark.parametrize(("settings", "message"), [
    ({"watch_interval_seconds": 1}, r"health.watch_interval_seconds: 1 must be in \[5, 86400\]"),
    ({"watch_interval_seconds": 120, "watch_min_event_interval_seconds": 60},
     r"watch_min_event_interval_seconds: 60 is shorter than watch_interval_seconds \(120\); raise it"),
])
def test_a_watch_interval_out_of_range_is_refused_naming_the_value(settings, message):
    with pytest.raises(ConfigError, match=message):
        HealthConfig(**settings)
