"""One health check of one table, as the sensors and triggers run it: compute, record, compare."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from lakeops.config import LakeopsConfig, TableConfig, load_config
from lakeops.health.compute import compute_health
from lakeops.health.thresholds import breaches, default_thresholds
from lakeops.tables.effective import effective

if TYPE_CHECKING:
    from pyiceberg.table import Table

    from lakeops.health.model import TableHealth

log = logging.getLogger(__name__)


def resolve_limits(spec: TableConfig, check: str, overrides: dict[str, Any] | None) -> dict[str, Any]:
    """The table's effective thresholds for `check`, with the given overrides (None values ignored)."""
    limits = default_thresholds(check, spec.health, spec.compaction)
    unknown = set(overrides or {}) - set(limits)
    if unknown:
        raise ValueError(f"threshold {sorted(unknown)[0]!r} does not apply to check {check!r}; use {', '.join(limits)}")
    # Templated limits arrive as strings ("{{ params.threshold }}" renders to "1.5").
    for key, value in (overrides or {}).items():
        if value is None or value in ("", "None"):
            continue
        try:
            limits[key] = float(value)
        except (TypeError, ValueError) as e:
            raise ValueError(f"threshold {key}: {value!r} is not a number; give e.g. 1.5") from e
    return limits


def run_check(table: str, check: str, overrides: dict[str, Any] | None = None, *, record: bool = True,
              config_path: str | None = None) -> list[dict[str, Any]]:
    """Partitions of `table` over the `check` threshold; each evaluation is stored in the history."""
    config = load_config(config_path)
    return evaluate_checks(config, table, {check: overrides}, record=record)[1][check]


def evaluate_checks(config: LakeopsConfig, table: str, checks: dict[str, dict[str, Any] | None], *,
                    record: bool = True, loaded: Table | None = None) -> tuple[TableHealth, dict[str, list[dict[str, Any]]]]:
    """The table's health, evaluated once and stored in the history, and the partitions over each
    check's threshold (check name -> its overrides, None for the configured ones). `loaded`: the
    table as pyiceberg already loaded it, to save a second catalog read."""
    if loaded is None:
        from lakeops.catalog import load_catalog

        loaded = load_catalog(config.catalog).load_table(config.identifier(table))
    spec = effective(config.table(table), loaded)
    limits = {check: resolve_limits(spec, check, overrides) for check, overrides in checks.items()}
    health = compute_health(loaded, spec.compaction, growth_window_hours=config.health.growth_window_hours)
    if record:
        from lakeops.health.record import record_evaluation

        record_evaluation(config, loaded, spec, health)
    found = {}
    for check, check_limits in limits.items():
        found[check] = breaches(check, health.partitions, target_bytes=health.target_file_size_bytes, **check_limits)
        log.info("%s on %s: %d of %d partitions over %s", check, table, len(found[check]), len(health.partitions),
                 check_limits)
    return health, found
