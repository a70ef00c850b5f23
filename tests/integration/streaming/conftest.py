"""Streaming ingest tests: a fresh catalog per test whose `events` table streams with small micro-batches."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import PROJECT_ROOT, make_test_config, register_catalog


def streaming_tables(commit_mode: str = "direct", **streaming) -> dict:
    """The shipped tables, with `events` streamed (ingest.mode) in commit_mode and its streaming section set to
    `streaming`."""
    tables = yaml.safe_load((PROJECT_ROOT / "include" / "lakeops.yaml").read_text())["tables"]
    tables["lakeops.events"]["streaming"] = streaming
    tables["lakeops.events"]["ingest"] = {**tables["lakeops.events"].get("ingest", {}), "mode": "streaming",
                                          "commit_mode": commit_mode}
    return tables


def streaming_config_file(path: Path, **streaming) -> Path:
    """The shipped config file with `events` streamed (streaming_tables), written to `path`."""
    data = yaml.safe_load((PROJECT_ROOT / "include" / "lakeops.yaml").read_text())
    data["tables"] = streaming_tables(**streaming)
    data.pop("models")  # not needed here; their SQL files are named relative to the shipped file
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.fixture()
def stream_config(tmp_path: Path):
    """Two landed files per micro-batch, so a handful of files makes several micro-batches."""
    return make_test_config(tmp_path, streaming_tables(max_files_per_trigger=2))


@pytest.fixture()
def stream_spark(spark, stream_config):
    return register_catalog(spark, stream_config)
