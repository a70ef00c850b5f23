"""The health sweep scores every maintained table and keeps its latest state, on a real SQLite catalog: a
fragmented table scores lower than a clean one, a configured table not created yet and a table that cannot
be read are recorded as such without hiding the others."""

from __future__ import annotations

import time

import pyarrow as pa

from lakeops.catalog import load_catalog
from lakeops.health.scores import FAILED, MISSING, OK, open_scores
from lakeops.health.sweep import sweep
from tests.conftest import make_test_config


class _Breaks:
    """A catalog whose table `broken` cannot be loaded (metadata unreadable)."""

    def __init__(self, catalog, broken: str) -> None:
        self._catalog, self._broken = catalog, broken

    def load_table(self, name):
        if name == self._broken:
            raise OSError(f"metadata of {name} unreadable")
        return self._catalog.load_table(name)

    def __getattr__(self, name):
        return getattr(self._catalog, name)


def _tables(tmp_path):
    small_target = {"compaction": {"target_file_size_mb": 1}}  # 20 files of ~80 KB are small against 1 MiB
    config = make_test_config(tmp_path, tables={"lakeops.not_yet": {}, "lakeops.fragmented": small_target,
                                                "lakeops.clean": small_target, "lakeops.broken": {}})
    catalog = load_catalog(config.catalog)
    catalog.create_namespace(config.catalog.namespace)
    schema = pa.schema([("id", pa.int64())])
    for name, appends in (("fragmented", 20), ("clean", 1), ("broken", 1)):
        table = catalog.create_table(f"lakeops.{name}", schema=schema)
        for i in range(appends):
            table.append(pa.table({"id": pa.array([hash((name, i, k)) for k in range(10_000)], pa.int64())}))
    return config, catalog


def test_sweep_scores_each_table_and_records_missing_and_failed_ones(tmp_path):
    config, catalog = _tables(tmp_path)
    now = int(time.time() * 1000)
    result = sweep(config, _Breaks(catalog, "lakeops.broken"), now_ms=now)
    assert sorted(result.evaluated) == ["lakeops.clean", "lakeops.fragmented"]
    assert result.missing == ["lakeops.not_yet"] and list(result.failed) == ["lakeops.broken"]

    latest = open_scores(config).latest()
    assert {t: r.status for t, r in latest.items()} == {"lakeops.clean": OK, "lakeops.fragmented": OK,
                                                        "lakeops.not_yet": MISSING, "lakeops.broken": FAILED}
    assert "metadata of lakeops.broken unreadable" in latest["lakeops.broken"].error
    clean, fragmented = latest["lakeops.clean"].evaluated, latest["lakeops.fragmented"].evaluated
    assert fragmented.inputs.data_files == 20 and clean.inputs.data_files == 1
    assert fragmented.score < clean.score and fragmented.worst == "small_files"
    assert clean.inputs.freshness_sla_minutes == 30 and clean.inputs.last_data_commit_ms is not None
    assert fragmented.inputs.small_files == 20 and fragmented.inputs.delete_files == 0

    # Nothing committed since: the next sweep within the growth window evaluates nothing, and the history keeps
    # one scored evaluation per table; a failed table's last good score survives its failure.
    again = sweep(config, catalog, now_ms=now + 60_000)
    assert sorted(again.unchanged) == ["lakeops.clean", "lakeops.fragmented"] and again.evaluated == ["lakeops.broken"]
    assert [r.score for r in open_scores(config).read("lakeops.fragmented")] == [fragmented.score]
    sweep(config, _Breaks(catalog, "lakeops.broken"), tables=["lakeops.broken"], now_ms=now + 120_000)
    broken = open_scores(config).latest()["lakeops.broken"]
    assert broken.status == FAILED and broken.evaluated is not None and broken.evaluated.evaluated_at_ms == now + 60_000
