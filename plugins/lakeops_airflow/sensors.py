"""Health sensors: they read Iceberg metadata only (never Spark) and succeed with the partitions
over threshold as their XCom value.

Three modes: poke (default), mode="reschedule" (frees the worker slot between pokes) and
deferrable=True (one synchronous check, then a TableHealthTrigger in the triggerer).
Thresholds default to the table's `health` and `compaction` settings in lakeops.yaml.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from airflow.sdk import BaseSensorOperator, PokeReturnValue

from lakeops_airflow.triggers import TableHealthTrigger


class TableHealthSensor(BaseSensorOperator):
    """Waits until at least one partition of `table` is over the `check` threshold."""

    check: str = ""
    template_fields: Sequence[str] = ("table", "limits")
    ui_color = "#d8efe4"

    def __init__(self, *, table: str, limits: dict[str, Any] | None = None, record_history: bool = True,
                 deferrable: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.table = table
        self.limits = dict(limits or {})
        self.record_history = record_history
        self.deferrable = deferrable

    def _check(self) -> list[dict[str, Any]]:
        from lakeops.health.check import run_check

        return run_check(self.table, self.check, self.limits, record=self.record_history)

    def poke(self, context: Any) -> PokeReturnValue:
        found = self._check()
        self.log.info("%s: %d partitions of %s over threshold", self.check, len(found), self.table)
        return PokeReturnValue(is_done=bool(found), xcom_value=found or None)

    def execute(self, context: Any) -> Any:
        if not self.deferrable:
            return super().execute(context)
        found = self._check()
        if found:
            return found
        self.defer(
            trigger=TableHealthTrigger(self.table, self.check, self.limits, self.poke_interval, self.record_history),
            method_name="execute_complete",
            timeout=timedelta(seconds=self.timeout),
        )

    def execute_complete(self, context: Any, event: dict[str, Any]) -> list[dict[str, Any]]:
        from lakeops.exceptions import LakeopsError

        if event.get("status") != "success":
            raise LakeopsError(f"{self.check} check of table {self.table!r} failed in the triggerer: {event.get('message')}")
        return list(event["partitions"])


class ReadAmplificationSensor(TableHealthSensor):
    """Fires on partitions whose full scan opens at least max_files files per data file or reads at
    least max_bytes bytes per live byte (limits={"max_files": 1.5, "max_bytes": 1.43})."""

    check = "read_amplification"


class DeleteFileGrowthSensor(TableHealthSensor):
    """Fires on partitions that gained at least max_per_hour live delete files per hour over the
    health growth window (limits={"max_per_hour": 12})."""

    check = "delete_growth"


class SmallFilesSensor(TableHealthSensor):
    """Fires on partitions holding at least min_small_files data files under the small-file size
    (compaction.small_file_fraction of target_file_size_mb; limits={"min_small_files": 100})."""

    check = "small_files"
