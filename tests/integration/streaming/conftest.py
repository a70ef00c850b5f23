"""Streaming ingest tests: a fresh catalog per test whose `events` table streams with small micro-batches."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import PROJECT_ROOT, make_test_config, register_catalog


def streaming_tables(**streaming) -> dict:
    """The shipped tables, with `events`' streaming section set to `streaming`."""
    tables = yaml.safe_load((PROJECT_ROOT / "include" / "lakeops.yaml").read_text())["tables"]
    tables["events"]["streaming"] = streaming
    return tables


@pytest.fixture()
def stream_config(tmp_path: Path):
    """Two landed files per micro-batch, so a handful of files makes several micro-batches."""
    return make_test_config(tmp_path, streaming_tables(max_files_per_trigger=2))


@pytest.fixture()
def stream_spark(spark, stream_config):
    return register_catalog(spark, stream_config)
