"""What the table page's buttons start: each action is a run of one of lakeops' maintenance DAGs with the
table's params, triggered through Airflow's REST API as the user who pressed it. Pure.

* compact: `compact_on_health`, whose manual run plans the named tables directly (the planner's rules decide
  what to rewrite; `compact_tables` would first wait for its sensors to fire);
* expire: `expire_snapshots` under the table's retention policy;
* rebuild zonemap: `zonemap_daily` for today (UTC), which reconciles the daily master with the live files,
  indexing every file the index lacks from Iceberg's manifest metrics.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from lakeops.exceptions import ConfigError

if TYPE_CHECKING:
    from lakeops.config import TableConfig


@dataclass(frozen=True)
class Action:
    name: str
    label: str
    dag_id: str
    dry_run: bool | None
    """True/False: passed as the DAG's `dry_run` param; None: the DAG has none."""
    needs_zonemap: bool = False

    def conf(self, table: str, now: datetime) -> dict[str, Any]:
        """The DAG run's params for `table`."""
        conf: dict[str, Any] = {"tables": [table]}
        if self.dry_run is not None:
            conf["dry_run"] = self.dry_run
        if self.dag_id == "zonemap_daily":
            conf["day"] = now.astimezone(UTC).date().isoformat()
        return conf


ACTIONS: tuple[Action, ...] = (
    Action("compact", "compact", "compact_on_health", False),
    Action("compact_dry_run", "compact (dry run)", "compact_on_health", True),
    Action("expire", "expire snapshots", "expire_snapshots", False),
    Action("expire_dry_run", "expire (dry run)", "expire_snapshots", True),
    Action("zonemap_rebuild", "rebuild zonemap", "zonemap_daily", None, needs_zonemap=True),
)
MAINTENANCE_DAGS = ("compact_on_health", "compact_tables", "expire_snapshots", "zonemap_daily", "zonemap_hourly")


def action(name: str) -> Action:
    for found in ACTIONS:
        if found.name == name:
            return found
    raise ConfigError(f"action {name!r} is not one of {', '.join(a.name for a in ACTIONS)}")


def available(spec: TableConfig | None) -> list[Action]:
    """The actions that apply to a table: all of them, the zonemap rebuild only with zonemap columns."""
    if spec is None:
        return []
    return [a for a in ACTIONS if not a.needs_zonemap or spec.zonemap.columns]
