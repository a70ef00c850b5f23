"""`lakeops health`: the document from computed figures and its text, on literals."""

from __future__ import annotations

from datetime import UTC, datetime

from lakeops.alerts.freshness import evaluate_freshness
from lakeops.cli.render.health import health_document, render_health
from lakeops.health.model import PartitionHealth, TableHealth

FIGURES = dict(data_files=24, data_records=880, data_bytes=54_051, small_files=24, small_file_bytes=54_051,
               avg_file_size_bytes=2252.1, position_delete_files=23, equality_delete_files=0, deletion_vectors=0,
               delete_files=23, delete_records=195, delete_bytes=37_373, delete_files_per_data_file=23 / 24,
               read_amp_files=1.95833, read_amp_bytes=2.16641, delete_files_added_per_hour=23.0,
               delete_bytes_added_per_hour=37_373.0, dangling_delete_files=0, dangling_delete_records=0)
NOW = datetime(2026, 11, 21, 10, 30, tzinfo=UTC)
BREACH = {"partition": "account_trunc=0/ts_hour=2026-11-21-09", "spec_id": 0, "metric": "read_amp_files",
          "partition_values": [["account_trunc", 0], ["ts_hour", 490329]], "value": 2.0, "threshold": 1.5}


def _health() -> TableHealth:
    partition = PartitionHealth(**FIGURES, partition=BREACH["partition"], spec_id=0,
                                partition_values=(("account_trunc", 0), ("ts_hour", 490329)), last_commit_ms=None)
    return TableHealth(**FIGURES, table="lake.sales.orders", evaluated_at_ms=int(NOW.timestamp() * 1000), snapshot_id=42,
                       format_version=2, target_file_size_bytes=128 * 2**20, small_file_threshold_bytes=96 * 2**20,
                       growth_window_hours=1.0, snapshots=4, data_manifests=3, delete_manifests=2,
                       last_commit_ms=int(NOW.timestamp() * 1000) - 600_000, last_commit_age_s=600.0, partitions=(partition,))


def _document() -> dict:
    freshness = evaluate_freshness("lake.sales.orders", datetime(2026, 11, 21, 10, 20, tzinfo=UTC), 45, NOW)
    limits = {"read_amplification": {"max_files": 1.5, "max_bytes": None}, "small_files": {"min_small_files": 100.0}}
    over = {"read_amplification": [BREACH] * 23, "small_files": []}
    return health_document(_health(), freshness, limits, over)


def test_the_document_groups_the_figures_and_names_at_most_20_partitions_a_check():
    d = _document()
    assert (d["table"], d["snapshot_id"], d["evaluated_at"]) == ("lake.sales.orders", 42, "2026-11-21T10:30:00+00:00")
    assert d["files"] == {"data_files": 24, "data_records": 880, "data_bytes": 54_051, "avg_file_size_bytes": 2252,
                          "small_files": 24, "small_file_bytes": 54_051, "small_file_threshold_bytes": 96 * 2**20,
                          "target_file_size_bytes": 128 * 2**20, "partitions": 1}
    assert d["deletes"]["position_delete_files"] == 23 and d["deletes"]["delete_files_per_data_file"] == 0.9583
    assert d["read_amplification"] == {"files": 1.9583, "bytes": 2.1664}
    assert d["metadata"] == {"snapshots": 4, "data_manifests": 3, "delete_manifests": 2,
                             "last_commit": "2026-11-21T10:20:00+00:00"}
    assert d["freshness"] == {"last_data_commit": "2026-11-21T10:20:00+00:00", "age_seconds": 600.0, "sla_minutes": 45,
                              "breached": False, "late_seconds": 0.0}
    assert d["checks"]["read_amplification"]["over"] == 23 and len(d["checks"]["read_amplification"]["partitions"]) == 20


def test_the_text_reads_as_a_summary():
    assert render_health(_document()).splitlines()[:10] == [
        "lake.sales.orders  snapshot 42 (format v2), evaluated 2026-11-21T10:30:00+00:00",
        "  data files          24 (880 rows, 52.8 KiB, 2.2 KiB on average) in 1 partition(s)",
        "  small files         24 under 96.0 MiB (52.8 KiB; target 128.0 MiB)",
        "  delete files        23: 23 position, 0 equality, 0 deletion vectors; 0 dangling; 195 records, 36.5 KiB",
        "  delete growth       23 delete files per hour over the last 1 h",
        "  read amplification  1.96 files opened per data file, 2.17 bytes read per live byte (1.00 is clean)",
        "  metadata            4 snapshots, 3 data and 2 delete manifests; last commit 2026-11-21T10:20:00+00:00",
        "  freshness           last data commit 2026-11-21T10:20:00+00:00 (10 min ago): within its 45 min SLA",
        "  read_amplification: 23 over its thresholds (max_files 1.5)",
        "    account_trunc=0/ts_hour=2026-11-21-09: read_amp_files 2 >= 1.5",
    ]
    lines = render_health(_document()).splitlines()
    assert lines[-2:] == ["    ... and 3 more", "  small_files: 0 over its thresholds (min_small_files 100)"]


def test_a_stalled_table_says_how_late_it_is():
    d = _document()
    d["freshness"] = {"last_data_commit": "2026-11-21T08:00:00+00:00", "age_seconds": 9000.0, "sla_minutes": 45,
                      "breached": True, "late_seconds": 6300.0}
    assert ("last data commit 2026-11-21T08:00:00+00:00 (2.5 h ago): BREACHED, 1.8 h late its 45 min SLA"
            in render_health(d))
    d["freshness"] = {"last_data_commit": None, "age_seconds": None, "sla_minutes": 45, "breached": True, "late_seconds": 0}
    assert "no commit has added data yet: in breach of its 45 min SLA" in render_health(d)
