"""The expiry benchmark: what it counts under a table's location, its report from literal rows, and a
tiny run through the expire_snapshots DAG (two intervals of history, one snapshot kept): every
table's run succeeds, keeps the current rows and leaves fewer snapshots."""

from __future__ import annotations

import uuid

import pytest
import yaml

from benchmarks.common import shipped_config
from benchmarks.expiry import Sizes, files_on_disk, report, run


class _Table:
    def __init__(self, location: str) -> None:
        self._location = location

    def location(self) -> str:
        return self._location


def test_files_on_disk_counts_every_file_under_the_location_and_their_bytes(tmp_path):
    (tmp_path / "data" / "day=1").mkdir(parents=True)
    (tmp_path / "data" / "day=1" / "a.parquet").write_bytes(b"x" * 10)
    (tmp_path / "metadata").mkdir()
    (tmp_path / "metadata" / "v1.metadata.json").write_bytes(b"y" * 5)
    assert files_on_disk(_Table(f"file://{tmp_path}")) == (2, 15)
    assert files_on_disk(_Table(str(tmp_path))) == (2, 15)


def test_the_report_names_the_history_and_the_retention_and_gives_a_row_per_table():
    rows = [["events", "success", "150", "5", "1,726", "1,240", "1.71", "yes", "34"]]
    text = report(rows, Sizes(), 1109.4)
    assert text.startswith("History: 150 one-minute intervals per table through the ingest and CDC jobs (1109 s in all); "
                           "expiry with older_than = now, retain_last = 5.\n\n")
    assert "| events | success | 150 | 5 | 1,726 | 1,240 | 1.71 | yes | 34 |" in text


@pytest.mark.spark
@pytest.mark.airflow
def test_a_tiny_history_expires_through_the_dag_and_keeps_every_current_row(airflow_db, spark, tmp_path, monkeypatch):
    # The shipped tables in a catalog of this test's own; the DAG and its spark-submit read the same file.
    shipped = shipped_config()
    shipped["catalog"] = {"name": f"t{uuid.uuid4().hex[:10]}", "namespace": "lakeops", "data_dir": str(tmp_path / "data")}
    (tmp_path / "lakeops.yaml").write_text(yaml.safe_dump(shipped))
    monkeypatch.setenv("LAKEOPS_CONFIG", str(tmp_path / "lakeops.yaml"))

    rows, seconds = run(Sizes(minutes=2, retain_last=1), spark, tables=("orders",))  # the CDC table: deletes too

    assert [r[0] for r in rows] == ["orders"] and seconds > 0
    for table, state, before, after, *_, same, _took in rows:
        assert state == "success", table
        assert same == "yes", table
        assert int(after) < int(before), table
