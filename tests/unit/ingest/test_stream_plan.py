"""lakeops.ingest.stream: the streaming query a table runs, its micro-batch identity and progress lines."""

from __future__ import annotations

import pytest

from lakeops.exceptions import ConfigError
from lakeops.ingest.stream import (
    AVAILABLE_NOW,
    SUPERVISED,
    StreamPlan,
    default_checkpoint,
    micro_batch_id,
    plan_stream,
    progress_line,
    source_glob,
)


@pytest.fixture
def config(make_config, tmp_path):
    return make_config({
        "catalog": {"data_dir": "/lake"},
        "landing_dir": "/land",
        "tables": {
            "events": {"source": "events", "ingest": {"mode": "streaming"},
                       "streaming": {"max_files_per_trigger": 20}},
            "clicks": {"ingest": {"mode": "streaming"},
                       "streaming": {"checkpoint_location": "s3a://lake/ck/clicks", "run_seconds": 600,
                                                         "trigger_interval_seconds": 5}},
            "users": {"ingest": {"format": "cdc"}, "key": ["user_id"], "source": "cdc/users"},
        },
    })


def test_available_now_plan(config):
    plan = plan_stream(config, "events", AVAILABLE_NOW)
    assert plan == StreamPlan(
        table_name="lakeops.events",
        table="`lakeops`.`lakeops`.`events`",
        quarantine_table="`lakeops`.`lakeops`.`events_quarantine`",
        source_glob="/land/events/*/*/*/*/*/*.jsonl",
        checkpoint="file:///lake/warehouse/_checkpoints/lakeops/events",
        query_name="lakeops_stream_lakeops__events",
        mode="available-now",
        max_files_per_trigger=20,
        trigger_seconds=None,
        run_seconds=None,
        stop_timeout_seconds=120,
    )
    assert plan.trigger() == {"availableNow": True}
    assert plan.source_options() == {"maxFilesPerTrigger": "20"}


def test_supervised_plan_takes_the_config_and_overrides(config):
    plan = plan_stream(config, "clicks", SUPERVISED)
    assert (plan.source_glob, plan.checkpoint, plan.trigger_seconds, plan.run_seconds) == (
        "/land/clicks/*/*/*/*/*/*.jsonl", "s3a://lake/ck/clicks", 5, 600)
    assert plan.trigger() == {"processingTime": "5 seconds"}
    override = plan_stream(config, "clicks", SUPERVISED, run_seconds=30, trigger_seconds=2)
    assert (override.run_seconds, override.trigger_seconds, override.trigger()) == (30, 2, {"processingTime": "2 seconds"})


def test_default_checkpoint_lies_beside_the_table_outside_its_location(config):
    assert default_checkpoint(config, "events") == "file:///lake/warehouse/_checkpoints/lakeops/events"


def test_source_glob_of_a_bucket_root():
    assert source_glob("s3a://lake/landing/", "events") == "s3a://lake/landing/events/*/*/*/*/*/*.jsonl"


def test_micro_batch_id_names_table_query_and_micro_batch():
    assert micro_batch_id("events", "9696f996-b9aa-4224-aecc-bd432875d4cf", 12) == \
        "events@stream-9696f996-b9aa-4224-aecc-bd432875d4cf-12"


@pytest.mark.parametrize(("table", "mode", "kwargs", "expected"), [
    ("users", AVAILABLE_NOW, {}, "tables.lakeops.users.ingest.mode is 'batch'"),
    ("events", "continuous", {}, "streaming mode 'continuous' is unknown; use one of available-now, supervised"),
    ("events", AVAILABLE_NOW, {"run_seconds": 60}, "apply to the supervised mode only"),
    ("events", SUPERVISED, {"run_seconds": 5}, "run_seconds: 5 must be a whole number from 10 to 21600; leave it unset"),
    ("events", SUPERVISED, {"trigger_seconds": 0}, "trigger_interval_seconds: 0 must be a whole number from 1 to 3600"),
    ("events", SUPERVISED, {"run_seconds": 20, "trigger_seconds": 20},
     "trigger interval 20 s is not shorter than the run of 20 s"),
    ("nope", AVAILABLE_NOW, {}, "table 'nope' is not in the config file"),
])
def test_bad_requests_say_what_to_fix(config, table, mode, kwargs, expected):
    with pytest.raises(ConfigError) as info:
        plan_stream(config, table, mode, **kwargs)
    assert expected in str(info.value)


def test_progress_line_from_spark_progress_json():
    progress = {"batchId": 7, "numInputRows": 500, "processedRowsPerSecond": 208.3,
                "durationMs": {"triggerExecution": 2400, "addBatch": 1900, "latestOffset": 120}}
    assert progress_line(progress) == ("micro-batch 7: 500 input rows in 2.4 s (208 rows/s; commit to the sink 1.9 s, "
                                       "file listing 0.1 s)")
    assert progress_line({"batchId": 0}) == ("micro-batch 0: 0 input rows in 0.0 s (0 rows/s; commit to the sink 0.0 s, "
                                             "file listing 0.0 s)")
