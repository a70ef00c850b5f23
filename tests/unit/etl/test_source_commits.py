"""The commit watch of a source lakeops does not ingest (lakeops.etl.source_commits), on a real SQL catalog whose
tables pyiceberg writes as another tool would: an event per new current snapshot, none for a metadata change
without one, none for where a table stood at the first poll, and an unreadable table skipped."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
import yaml

from lakeops.catalog import load_catalog
from lakeops.config import parse_config
from lakeops.etl.source_commits import CommitWatch
from tests.conftest import config_data

SCHEMA = pa.schema([("id", pa.int64())])


@pytest.fixture()
def catalog_and_path(tmp_path):
    data = config_data(tmp_path, tables={})
    path = tmp_path / "lakeops.yaml"
    path.write_text(yaml.safe_dump(data))
    catalog = load_catalog(parse_config(data, tmp_path).catalog)
    catalog.create_namespace_if_not_exists("lakeops")
    return catalog, str(path)


def _append(table, *ids: int) -> int:
    table.append(pa.table({"id": pa.array(ids, pa.int64())}))
    return table.refresh().metadata.current_snapshot_id


def test_each_new_snapshot_is_one_event_and_nothing_else_is(catalog_and_path):
    catalog, path = catalog_and_path
    watch = CommitWatch(["flink_orders"], config_path=path)
    assert watch.poll() == []  # not created yet
    table = catalog.create_table("lakeops.flink_orders", SCHEMA)
    assert watch.poll() == []  # created, no snapshot
    first = _append(table, 1, 2)
    assert watch.poll() == [{"table": "lakeops.flink_orders", "snapshot_id": first, "previous_snapshot_id": None}]
    assert watch.poll() == []
    with table.transaction() as change:  # a new metadata file, the same snapshot
        change.set_properties({"owner": "flink"})
    assert watch.poll() == []
    second = _append(table, 3)
    assert watch.poll() == [{"table": "lakeops.flink_orders", "snapshot_id": second, "previous_snapshot_id": first}]
    assert watch.loads == 4  # the table is loaded when its metadata file moves, not at every poll


def test_where_a_table_stands_at_the_first_poll_is_no_event(catalog_and_path):
    catalog, path = catalog_and_path
    table = catalog.create_table("lakeops.flink_orders", SCHEMA)
    _append(table, 1)
    watch = CommitWatch(["lakeops.flink_orders"], config_path=path)
    assert watch.poll() == []
    latest = _append(table, 2)
    assert [e["snapshot_id"] for e in watch.poll()] == [latest]


def test_an_unreadable_table_is_skipped_and_the_others_still_watched(catalog_and_path, caplog):
    catalog, path = catalog_and_path
    broken, fine = (catalog.create_table(f"lakeops.{name}", SCHEMA) for name in ("broken", "fine"))
    watch = CommitWatch(["broken", "fine"], config_path=path)
    assert watch.poll() == []
    _append(broken, 1)
    Path(broken.refresh().metadata_location.removeprefix("file://")).unlink()
    latest = _append(fine, 2)
    with caplog.at_level("ERROR", logger="lakeops.etl.source_commits"):
        assert [(e["table"], e["snapshot_id"]) for e in watch.poll()] == [("lakeops.fine", latest)]
    assert "lakeops.broken cannot be read" in caplog.text


def test_a_watch_of_no_table_is_refused():
    with pytest.raises(ValueError, match="needs at least one table"):
        CommitWatch([])
