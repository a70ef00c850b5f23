"""The health watch's cost follows the tables that committed, not the number of tables: on a real
SQLite-backed catalog, a poll loads only the tables whose metadata changed since the last poll."""

from __future__ import annotations

import pyarrow as pa
import yaml

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.health.watch import HealthWatch
from lakeops.tables.pointers import metadata_locations


def test_a_poll_loads_only_the_tables_that_committed(tmp_path):
    path = tmp_path / "lakeops.yaml"
    path.write_text(yaml.safe_dump({"catalog": {"data_dir": str(tmp_path / "data")},
                                    "discover": [{"namespaces": ["many"]}]}))
    config = load_config(path)
    catalog = load_catalog(config.catalog)
    catalog.create_namespace("many")
    schema = pa.schema([("id", pa.int64())])
    tables = [catalog.create_table(f"many.t{i:02d}", schema=schema) for i in range(12)]
    for table in tables:
        table.append(pa.table({"id": [1]}))
    names = [f"many.t{i:02d}" for i in range(12)]
    assert metadata_locations(catalog, [*names, "many.absent"])["many.absent"] is None

    watch = HealthWatch(None, config_path=str(path), record=False)
    watch.poll(now_s=0.0)
    assert (watch.loads, watch.evaluations) == (12, 12)
    watch.poll(now_s=60.0)
    assert watch.loads == 12, "no table committed: nothing loaded"
    tables[3].append(pa.table({"id": [2]}))
    watch.poll(now_s=120.0)
    assert (watch.loads, watch.evaluations) == (13, 13), "one table committed: one load, one evaluation"


def test_a_table_whose_property_moves_it_to_the_schedule_is_not_watched(tmp_path):
    path = tmp_path / "lakeops.yaml"
    path.write_text(yaml.safe_dump({"catalog": {"data_dir": str(tmp_path / "data")}, "discover": [{"namespaces": ["a"]}]}))
    config = load_config(path)
    catalog = load_catalog(config.catalog)
    catalog.create_namespace("a")
    table = catalog.create_table("a.t", schema=pa.schema([("id", pa.int64())]))
    table.append(pa.table({"id": [1]}))
    watch = HealthWatch(None, config_path=str(path), record=False)
    watch.poll(now_s=0.0)
    assert watch.states["a.t"].watched and watch.evaluations == 1
    with table.transaction() as tx:
        tx.set_properties({"lakeops.compaction.trigger": "schedule"})
    watch.poll(now_s=60.0)
    assert not watch.states["a.t"].watched and watch.evaluations == 1
