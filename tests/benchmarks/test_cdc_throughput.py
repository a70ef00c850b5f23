"""The CDC part of the throughput benchmark: committed batches read from a real pyiceberg table's snapshots (a
published copy's files counted once), and rates from the first commit to the last on literal batches. Timings are
measured by the benchmark, never asserted here."""

from __future__ import annotations

import pyarrow as pa

from benchmarks.cdc_throughput import CDC, Batch, CdcMeasured, batches, measure
from lakeops.catalog import load_catalog


def test_batches_sum_consumed_records_and_count_files_on_their_own_snapshots(lakeops_config):
    catalog = load_catalog(lakeops_config.catalog)
    catalog.create_namespace_if_not_exists("lakeops")
    table = catalog.create_table("lakeops.orders", pa.schema([pa.field("order_id", pa.int64())]))
    rows = pa.table({"order_id": pa.array([1, 2], pa.int64())})
    table.append(rows, snapshot_properties={"lakeops.batch-id": "b1", "lakeops.rows": "5", "lakeops.quarantined": "1",
                                            "lakeops.skipped": "2"})
    table.append(rows)  # not a batch: another writer's commit
    table.append(rows, snapshot_properties={"lakeops.batch-id": "b2", "lakeops.rows": "7",
                                            "published-wap-id": "b2"})  # a published copy: its files are not new

    found = batches(catalog.load_table("lakeops.orders"))

    assert [(b.batch_id, b.records, b.data_files) for b in found] == [("b1", 8, 1), ("b2", 7, 0)]
    assert found[0].committed_ms <= found[1].committed_ms


def test_rates_run_from_the_first_commit_to_the_last_without_the_first_batch():
    found = [Batch("snapshot", 1_000, 40_000, 2, 0), Batch("m1", 11_000, 20_000, 2, 3), Batch("m2", 21_000, 30_000, 2, 3)]
    m = measure(found, CdcMeasured(CDC))
    assert (m.seconds, m.records, m.changes_per_s) == (20.0, 50_000, 2_500.0)
    assert (m.micro_batches, m.data_files, m.delete_files) == (2, 4, 6)
    assert m.delete_files_per_minute == 18.0
    assert m.timeline == [(0.0, 40_000), (10.0, 60_000), (20.0, 90_000)]
    assert measure(found[:1], CdcMeasured(CDC)).seconds == 0.0


def test_each_micro_batch_rate_is_its_records_over_the_time_since_the_previous_commit(tmp_path, monkeypatch):
    from benchmarks import common
    from benchmarks.cdc_throughput import plot_cdc

    found = [Batch("snapshot", 1_000, 40_000, 2, 0), Batch("m1", 11_000, 20_000, 2, 3), Batch("m2", 21_000, 30_000, 2, 3)]
    m = measure(found, CdcMeasured(CDC))
    assert m.rates() == [(10.0, 2_000.0), (20.0, 3_000.0)]
    monkeypatch.setattr(common, "RESULTS_DIR", tmp_path)
    assert plot_cdc(m, "cdc").stat().st_size > 0
