"""The benchmarks' shared helpers: tables, result files, percentiles, costs, and the commit count
read from a real table's metadata."""

from __future__ import annotations

import json

import pytest

from benchmarks import common
from benchmarks.common import (
    Cost,
    bench_config,
    demo_table,
    markdown_table,
    metadata_version,
    output_name,
    percentile,
    write_results,
)


def test_a_markdown_table_right_aligns_every_column_but_the_first():
    assert markdown_table(["what", "n"], [["a", 1], ["b", "2.50"]]) == "| what | n |\n|---|---:|\n| a | 1 |\n| b | 2.50 |"


def test_a_quick_run_is_named_apart_so_it_never_overwrites_a_full_runs_results():
    assert (output_name("zonemaps", False), output_name("zonemaps", True)) == ("zonemaps", "zonemaps_quick")


def test_results_are_the_report_and_its_measurements_under_the_results_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(common, "RESULTS_DIR", tmp_path / "results")
    paths = write_results("bench", "# report\n", {"rows": 3})
    assert [p.name for p in paths] == ["bench.md", "bench.json"]
    assert (tmp_path / "results" / "bench.md").read_text() == "# report\n"
    assert json.loads((tmp_path / "results" / "bench.json").read_text()) == {"rows": 3}
    assert [p.name for p in write_results("table_only", "x")] == ["table_only.md"]


def test_percentile_is_nearest_rank():
    values = [float(v) for v in range(1, 21)]  # 1..20
    assert (percentile(values, 50), percentile(values, 95), percentile(values, 100)) == (10.0, 19.0, 20.0)
    assert percentile([7.0], 95) == 7.0


def test_costs_add_up_and_count_their_calls():
    total = Cost()
    total.add(Cost(1.0, 2.0, 0.5, 1))
    total.add(Cost(0.5, 1.0, 0.25, 1))
    assert (total.wall_s, total.cpu_s, total.calls) == (1.5, 3.75, 2)
    assert total.as_dict() == {"wall_s": 1.5, "jvm_cpu_s": 3.0, "py_cpu_s": 0.75, "calls": 2, "cpu_s": 3.75}


def test_the_commit_count_is_the_metadata_version_of_a_real_table(tmp_path):
    import pyarrow as pa

    from lakeops.catalog import load_catalog

    config = bench_config(tmp_path, {"events": demo_table("events")})
    catalog = load_catalog(config.catalog)
    catalog.create_namespace_if_not_exists(config.catalog.namespace)
    table = catalog.create_table(config.identifier("events"), pa.schema([pa.field("n", pa.int64())]))
    before = metadata_version(config, "events")
    table.append(pa.table({"n": [1]}))
    table.append(pa.table({"n": [2]}))
    assert metadata_version(config, "events") == before + 2
    with pytest.raises(Exception, match="events_missing"):
        metadata_version(config, "events_missing")

