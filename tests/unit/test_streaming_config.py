"""lakeops.config: the `streaming` section of a table (defaults, the shipped values, validation)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakeops.config import STREAM_MAX_RUN_SECONDS, StreamingConfig, load_config
from lakeops.exceptions import ConfigError

SHIPPED_CONFIG = Path(__file__).resolve().parents[2] / "include" / "lakeops.yaml"


def events_streaming(**streaming):
    return {"tables": {"events": {"streaming": streaming}}}


def test_streaming_defaults(make_config):
    streaming = make_config({"tables": {"events": {}}}).table("events").streaming
    assert streaming == StreamingConfig(checkpoint_location=None, max_files_per_trigger=100, trigger_interval_seconds=15,
                                        run_seconds=3600, stop_timeout_seconds=120)
    assert STREAM_MAX_RUN_SECONDS == 21600


def test_streaming_settings_are_read(make_config):
    config = make_config(events_streaming(checkpoint_location="s3a://lake/checkpoints/events", max_files_per_trigger=20,
                                          trigger_interval_seconds=5, run_seconds=600, stop_timeout_seconds=30))
    streaming = config.table("events").streaming
    assert streaming == StreamingConfig("s3a://lake/checkpoints/events", 20, 5, 600, 30)


def test_shipped_streaming_section():
    assert load_config(SHIPPED_CONFIG).table("events").streaming == StreamingConfig(
        checkpoint_location=None, max_files_per_trigger=100, trigger_interval_seconds=15, run_seconds=3600)


def test_empty_checkpoint_location_means_the_default(make_config, monkeypatch):
    monkeypatch.delenv("LAKEOPS_CHECKPOINT", raising=False)
    config = make_config(events_streaming(checkpoint_location="${LAKEOPS_CHECKPOINT:-}"))
    assert config.table("events").streaming.checkpoint_location is None


def test_unknown_streaming_key_is_named(make_config):
    with pytest.raises(ConfigError, match=r"^tables.lakeops.events.streaming: unknown key 'trigger'; "
                                          r"allowed keys are checkpoint_location, "):
        make_config(events_streaming(trigger="10 seconds"))


@pytest.mark.parametrize(("settings", "expected"), [
    ({"checkpoint_location": "checkpoints/events"},
     "streaming.checkpoint_location: 'checkpoints/events' is relative; use an absolute path or a URI"),
    ({"max_files_per_trigger": 0}, "streaming.max_files_per_trigger: 0 must be a whole number from 1 to 100000, e.g. 100"),
    ({"trigger_interval_seconds": 0}, "streaming.trigger_interval_seconds: 0 must be a whole number from 1 to 3600, e.g. 15"),
    ({"run_seconds": 5}, "streaming.run_seconds: 5 must be a whole number from 10 to 21600, e.g. 3600"),
    ({"run_seconds": 86400}, "streaming.run_seconds: 86400 must be a whole number from 10 to 21600"),
    ({"stop_timeout_seconds": 1}, "streaming.stop_timeout_seconds: 1 must be a whole number from 10 to 3600, e.g. 120"),
    ({"run_seconds": 60, "trigger_interval_seconds": 60},
     "streaming.trigger_interval_seconds: 60 must be shorter than streaming.run_seconds (60)"),
    ({"max_files_per_trigger": "10"}, "tables.lakeops.events.streaming.max_files_per_trigger: '10' must be a whole number"),
    ({"run_seconds": True}, "tables.lakeops.events.streaming.run_seconds: True must be a whole number"),
])
def test_bad_streaming_values_name_key_value_and_fix(make_config, settings, expected):
    with pytest.raises(ConfigError) as info:
        make_config(events_streaming(**settings))
    assert expected in str(info.value)
