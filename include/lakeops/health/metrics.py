"""Each health evaluation as gauges through Airflow's metrics (its `Stats` facade), so the backend the deployment
configured (StatsD, Datadog's DogStatsD or OpenTelemetry, under its [metrics] settings) carries them to the
user's own dashboards and alerts.

Names are per table, the table's identifier last: `lakeops.table_health.<gauge>.<namespace>.<table>` (Airflow
adds its prefix, `airflow.` by default), and every gauge also carries the tag `table` for backends with tags.
Outside Airflow (the CLI, a Spark job) nothing is sent.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lakeops.health.score import freshness_lag_s

if TYPE_CHECKING:
    from lakeops.health.score import HealthScore, ScoreInputs

log = logging.getLogger(__name__)
PREFIX = "lakeops.table_health"
GAUGES = ("score", "data_files", "small_files", "delete_files", "read_amplification", "freshness_lag_seconds",
          "zonemap_coverage", "zonemap_pruning")


def gauge_name(gauge: str, table: str) -> str:
    """`lakeops.table_health.score.sales.orders` for gauge `score` of table `sales.orders`."""
    return f"{PREFIX}.{gauge}.{table}"


def gauges(result: HealthScore, inputs: ScoreInputs) -> dict[str, float]:
    """gauge -> value of one evaluation; gauges that do not apply (no zonemap, never committed) are left out."""
    values: dict[str, float] = {"score": float(result.score), "data_files": float(inputs.data_files),
                                "read_amplification": round(inputs.read_amp_files, 4)}
    if inputs.small_files is not None:
        values["small_files"] = float(inputs.small_files)
    if inputs.delete_files is not None:
        values["delete_files"] = float(inputs.delete_files)
    lag = freshness_lag_s(inputs, result.evaluated_at_ms)
    if lag is not None:
        values["freshness_lag_seconds"] = round(lag, 1)
    if inputs.zonemap_coverage is not None:
        values["zonemap_coverage"] = round(inputs.zonemap_coverage, 4)
        values["zonemap_pruning"] = round(inputs.zonemap_pruning or 0.0, 4)
    return values


def _stats() -> object | None:
    """Airflow's Stats facade, set up from the deployment's [metrics] configuration if this process has not
    done it (a task process has; a plain script has not). None when Airflow is not installed."""
    try:
        from airflow.sdk.observability import stats
        from airflow.sdk.observability.metrics import stats_utils
    except ImportError:
        return None
    from airflow.sdk._shared.observability.metrics import stats as backend

    if getattr(backend, "_factory", None) is None:
        from airflow.sdk.configuration import conf

        stats.initialize(factory=stats_utils.get_stats_factory(),
                         export_legacy_names=conf.getboolean("metrics", "legacy_names_on", fallback=True))
    return stats


def emit(table: str, values: dict[str, float]) -> None:
    """Send `values` as gauges of `table`; a metrics failure never fails the evaluation."""
    try:
        stats = _stats()
        if stats is None:
            return
        for gauge, value in values.items():
            stats.gauge(gauge_name(gauge, table), value, tags={"table": table})  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - the figures are already stored; monitoring must not break maintenance
        log.warning("health gauges of %s could not be sent", table, exc_info=True)
