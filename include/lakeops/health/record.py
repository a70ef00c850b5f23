"""Record one health evaluation of a table everywhere it is read: the health history (figures per table and
partition), the score store (its score and the score's inputs) and Airflow's metrics (gauges per table).

The zonemap figures read the table's zonemap index, so only the table_health sweep computes them
(`zonemap=True`); the sensors' and the watch's evaluations reuse the table's last ones.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from lakeops.health.score import HealthScore, ScoreInputs, inputs_from, score

if TYPE_CHECKING:
    from pyiceberg.table import Table

    from lakeops.config import LakeopsConfig, TableConfig
    from lakeops.health.history import HealthHistory
    from lakeops.health.model import TableHealth
    from lakeops.health.scores import ScoreStore
    from lakeops.health.zonemap_figures import ZonemapFigures

log = logging.getLogger(__name__)


def _last_zonemap(store: ScoreStore, table: str) -> ZonemapFigures | None:
    from lakeops.health.zonemap_figures import ZonemapFigures

    latest = store.latest_of(table)
    inputs = latest.evaluated.inputs if latest and latest.evaluated else None
    if inputs is None or inputs.zonemap_coverage is None:
        return None
    return ZonemapFigures(inputs.zonemap_coverage, inputs.zonemap_pruning or 0.0, inputs.zonemap_column, 0, 0)


def record_evaluation(config: LakeopsConfig, loaded: Table, spec: TableConfig, health: TableHealth, *,
                      zonemap: bool = False, history: HealthHistory | None = None,
                      store: ScoreStore | None = None) -> tuple[HealthScore, ScoreInputs]:
    """Store `health` and its score, send the gauges; returns the score and its inputs."""
    from lakeops.health.history import open_history
    from lakeops.health.metrics import emit, gauges
    from lakeops.health.scores import ScoreStore
    from lakeops.health.zonemap_figures import zonemap_figures
    from lakeops.tables.commits import last_data_commit_ms

    history = history or open_history(config)
    history.append(health)
    store = store or ScoreStore(history.engine)
    figures = None
    if spec.zonemap.columns:
        if zonemap:
            try:
                figures = zonemap_figures(loaded, spec)
            except Exception:  # noqa: BLE001 - an unreadable index costs the zonemap parts, not the evaluation
                log.warning("zonemap figures of %s cannot be read; its last ones are kept", spec.name, exc_info=True)
                figures = _last_zonemap(store, spec.name)
        else:
            figures = _last_zonemap(store, spec.name)
    inputs = inputs_from(health, spec, last_data_commit_ms(loaded), figures)
    result = score(inputs, health.evaluated_at_ms)
    store.record(spec.name, result, inputs, health.snapshot_id)
    emit(spec.name, gauges(result, inputs))
    worst = result.worst
    log.info("health score of %s: %d%s", spec.name, result.score,
             f" (worst: {worst.label}, {worst.lost:.1f} points: {worst.figure})" if worst else "")
    return result, inputs


def emit_latest(table: str, inputs: ScoreInputs, now_ms: int | None = None) -> HealthScore:
    """Send the gauges of a table that did not change since its last evaluation, its freshness aged to now."""
    from lakeops.health.metrics import emit, gauges

    result = score(inputs, int(time.time() * 1000) if now_ms is None else now_ms)
    emit(table, gauges(result, inputs))
    return result
