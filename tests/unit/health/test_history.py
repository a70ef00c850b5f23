"""Health history stored in the catalog's SQLite database, appended and read back."""

from __future__ import annotations

import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog

from lakeops.exceptions import ConfigError
from lakeops.health.compute import compute_health
from lakeops.health.history import _ENGINES, HealthHistory, history_url, open_history


@pytest.fixture()
def health_of(tmp_path):
    cat = SqlCatalog("t", uri=f"sqlite:///{tmp_path}/c.db", warehouse=(tmp_path / "wh").as_uri())
    cat.create_namespace("ns")
    table = cat.create_table("ns.h", pa.schema([pa.field("id", pa.int64())]))

    def evaluate(now_ms: int):
        table.append(pa.table({"id": pa.array([now_ms], pa.int64())}))
        return compute_health(table.refresh(), now_ms=now_ms)

    return evaluate


def test_append_and_read_back_in_time_order(tmp_path, health_of):
    history = HealthHistory(f"sqlite:///{tmp_path}/history.db")
    evaluations = [health_of(now) for now in (3_000_000_000_000, 3_000_000_060_000, 3_000_000_120_000)]
    for health in reversed(evaluations):
        assert history.append(health) == 2  # the table row and its one (unpartitioned) partition row
    points = history.read("ns.h")
    assert [p.evaluated_at_ms for p in points] == [h.evaluated_at_ms for h in evaluations]
    assert [p.data_files for p in points] == [1, 2, 3]
    assert points[-1].snapshots == 3 and points[-1].read_amp_files == 1.0 and points[-1].partition is None
    assert points[-1].snapshot_id == evaluations[-1].snapshot_id
    partitions = history.read("ns.h", partitions=True)
    assert [p.partition for p in partitions] == ["", "", ""] and partitions[0].snapshots is None
    assert [p.evaluated_at_ms for p in history.read("ns.h", since_ms=3_000_000_060_000, until_ms=3_000_000_120_000)] \
        == [3_000_000_060_000]
    assert history.read("ns.other") == [] and history.tables() == ["ns.h"]
    assert history.prune(3_000_000_100_000) == 4
    assert len(history.read("ns.h")) == 1


def test_default_location_is_the_embedded_catalog_database(make_config, tmp_path):
    config = make_config({"catalog": {"data_dir": "data"}})
    assert history_url(config) == f"sqlite:///{tmp_path / 'data' / 'catalog.db'}"
    assert open_history(config).read("lakeops.events") == []
    assert (tmp_path / "data" / "catalog.db").exists()


def test_rest_catalog_needs_a_history_url(make_config):
    config = make_config({"catalog": {"kind": "rest", "uri": "http://127.0.0.1:1", "warehouse": "s3://w"}})
    with pytest.raises(ConfigError, match="health.history_url.*LAKEOPS_HEALTH_DB_URL"):
        history_url(config)
    configured = make_config({"catalog": {"kind": "rest", "uri": "http://x", "warehouse": "s3://w"},
                              "health": {"history_url": "sqlite:////tmp/h.db"}})
    assert history_url(configured) == "sqlite:////tmp/h.db"


@pytest.mark.parametrize(("health", "message"), [
    ({"growth_window_hours": 0}, "health.growth_window_hours: 0.0 must be in"),
    ({"history_url": "localhost/db"}, "health.history_url: 'localhost/db' is not a database URL"),
    ({"colour": 1}, "unknown key 'colour'"),
])
def test_bad_health_settings_are_named(make_config, health, message):
    with pytest.raises(ConfigError, match=message):
        make_config({"health": health})


def test_a_history_table_without_the_newer_figures_gains_them_and_keeps_its_rows(tmp_path, health_of):
    import sqlalchemy as sa

    url = f"sqlite:///{tmp_path}/old.db"
    HealthHistory(url).append(health_of(3_000_000_000_000))
    engine = sa.create_engine(url)
    with engine.begin() as conn:  # the table as a release before dangling delete files wrote it
        for column in ("dangling_delete_files", "dangling_delete_records"):
            conn.execute(sa.text(f"ALTER TABLE lakeops_health_history DROP COLUMN {column}"))
    _ENGINES.clear()
    history = HealthHistory(url)
    history.append(health_of(3_000_000_060_000))
    points = history.read("ns.h")
    assert [(p.data_files, p.dangling_delete_files) for p in points] == [(1, None), (2, 0)]
