"""Streaming ingest tests: a fresh catalog per test whose `events` table streams with small micro-batches."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from lakeops.catalog import load_catalog
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


def committed_event_ids(config) -> list[str]:
    table = load_catalog(config.catalog).load_table(config.identifier("events"))
    return table.scan(selected_fields=("event_id",)).to_arrow().column("event_id").to_pylist()


def quarantined_rows(config) -> int:
    return load_catalog(config.catalog).load_table(config.identifier("events_quarantine")).scan().to_arrow().num_rows


def stream_snapshots(config) -> list:
    """Published snapshots of `events` committed by a micro-batch of the stream, oldest first."""
    table = load_catalog(config.catalog).load_table(config.identifier("events"))
    from pyiceberg.table.snapshots import ancestors_of

    found = [s for s in ancestors_of(table.current_snapshot(), table.metadata)
             if "@stream-" in (s.summary or {}).get("lakeops.batch-id", "")]
    return list(reversed(found))
