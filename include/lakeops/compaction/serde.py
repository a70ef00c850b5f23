"""Plans and health figures as JSON-ready values: the planner task hands its plan to the Spark job
through XCom and a job argument, and the job reports before/after figures in its result."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from lakeops.compaction.plan import CompactionAction, CompactionPlan
from lakeops.exceptions import ConfigError
from lakeops.health.model import TableHealth

_ACTION_FIELDS = {f.name for f in dataclasses.fields(CompactionAction)}


def _action(data: dict[str, Any]) -> CompactionAction:
    fields = {k: v for k, v in data.items() if k in _ACTION_FIELDS}
    fields["partitions"] = tuple(fields.get("partitions") or ())  # JSON has lists
    return CompactionAction(**fields)


def plan_from_json(text: str) -> CompactionPlan:
    try:
        data = json.loads(text)
        return CompactionPlan(
            table=str(data["table"]),
            actions=tuple(_action(a) for a in data["actions"]),
            deferred=tuple(_action(a) for a in data.get("deferred", [])),
            budget_bytes=int(data["budget_bytes"]),
            selected=tuple(_action(a) for a in data.get("selected", [])),
        )
    except (ValueError, KeyError, TypeError) as e:
        raise ConfigError(f"compaction plan {text[:120]!r} is not a plan as plan_table().as_dict() writes it: {e}") from e


def health_figures(health: TableHealth) -> dict[str, Any]:
    """The figures compaction changes, for the before/after record."""
    return {
        "snapshot_id": health.snapshot_id,
        "data_files": health.data_files,
        "small_files": health.small_files,
        "delete_files": health.delete_files,
        "applied_delete_files": health.applied_delete_files,
        "dangling_delete_files": health.dangling_delete_files,
        "delete_records": health.delete_records,
        "data_bytes": health.data_bytes,
        "data_manifests": health.data_manifests,
        "read_amp_files": round(health.read_amp_files, 3),
        "read_amp_bytes": round(health.read_amp_bytes, 3),
    }
