"""What a table holds, read two independent ways: pyiceberg (metadata + Arrow scan) and Spark SQL."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lakeops.config import LakeopsConfig

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class TableSummary:
    rows: int
    files: int
    snapshots: int
    """Snapshots on the current branch's history (staged, never-published snapshots are not counted)."""
    quarantined: int


def pyiceberg_summary(catalog: Catalog, config: LakeopsConfig, table: str) -> TableSummary:
    spec = config.table(table)
    events = catalog.load_table(config.identifier(spec.name))
    quarantine = catalog.load_table(config.identifier(spec.quarantine_name))
    return TableSummary(
        rows=events.scan().to_arrow().num_rows,
        files=sum(1 for _ in events.scan().plan_files()),
        snapshots=len(events.history()),
        quarantined=quarantine.scan().to_arrow().num_rows,
    )


def spark_summary(spark: SparkSession, config: LakeopsConfig, table: str) -> TableSummary:
    spec = config.table(table)
    name, quarantine = config.qualified(spec.name), config.qualified(spec.quarantine_name)

    def scalar(sql: str) -> int:
        return int(spark.sql(sql).collect()[0][0])

    return TableSummary(
        rows=scalar(f"SELECT count(*) FROM {name}"),
        files=scalar(f"SELECT count(*) FROM {name}.files"),
        snapshots=scalar(f"SELECT count(*) FROM {name}.history"),
        quarantined=scalar(f"SELECT count(*) FROM {quarantine}"),
    )


def batch_commits(catalog: Catalog, config: LakeopsConfig, table: str) -> list[dict[str, str]]:
    """The lakeops batch summaries of the current branch's snapshots, oldest first."""
    loaded = catalog.load_table(config.identifier(config.table(table).name))
    commits = []
    for entry in loaded.history():
        snapshot = loaded.snapshot_by_id(entry.snapshot_id)
        props = snapshot.summary.additional_properties if snapshot and snapshot.summary else {}
        if "lakeops.batch-id" in props:
            commits.append({"snapshot_id": str(entry.snapshot_id), **props})
    return commits
