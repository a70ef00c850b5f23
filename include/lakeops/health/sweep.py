"""Health of every maintained table, recorded on a schedule (the table_health DAG): figures in the history,
the score and its inputs in the score store, gauges through Airflow's metrics, so the UI and the user's
monitoring have every table's figures, whatever starts its compactions. A table whose snapshot has not changed
since its last evaluation is evaluated again only once that is a growth window old; meanwhile its gauges are
sent again from its last evaluation, freshness aged to now. Tables not created yet and tables that cannot be
read are recorded as such (lakeops.health.scores), without hiding the others."""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog

    from lakeops.config import LakeopsConfig

log = logging.getLogger(__name__)


@dataclass
class SweepResult:
    evaluated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    """Configured tables not created yet."""
    failed: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return asdict(self)


def due(last: tuple[int | None, int] | None, snapshot_id: int | None, now_ms: int, window_ms: int) -> bool:
    """Whether a table needs evaluating: never evaluated, a new snapshot, or its last evaluation a window old."""
    return last is None or last[0] != snapshot_id or now_ms - last[1] >= window_ms


def sweep(config: LakeopsConfig, catalog: Catalog, tables: list[str] | None = None, now_ms: int | None = None) -> SweepResult:
    """Evaluate and record the health of `tables` (default: every maintained table) that is due."""
    from pyiceberg.exceptions import NoSuchTableError

    from lakeops.health.compute import compute_health
    from lakeops.health.history import open_history
    from lakeops.health.record import emit_latest, record_evaluation
    from lakeops.health.scores import FAILED, MISSING, ScoreStore
    from lakeops.tables.effective import effective

    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    window_ms = int(config.health.growth_window_hours * 3600 * 1000)
    history = open_history(config)
    store = ScoreStore(history.engine)
    latest, scored = history.latest(), store.latest()
    result = SweepResult()
    names = [config.identifier(t) for t in tables] if tables else [str(t) for t in config.maintained(catalog)]
    for name in names:
        try:
            loaded = catalog.load_table(name)
            last = scored.get(name)
            if not due(latest.get(name), loaded.metadata.current_snapshot_id, now_ms, window_ms) and last and last.evaluated:
                emit_latest(name, last.evaluated.inputs, now_ms)  # freshness ages: the gauges go out every sweep
                result.unchanged.append(name)
                continue
            spec = effective(config.table(name), loaded)
            health = compute_health(loaded, spec.compaction, now_ms=now_ms,
                                    growth_window_hours=config.health.growth_window_hours)
            record_evaluation(config, loaded, spec, health, zonemap=True, history=history, store=store)
            result.evaluated.append(name)
        except NoSuchTableError:
            result.missing.append(name)
            store.record_status(name, MISSING, now_ms)
        except Exception as e:  # noqa: BLE001 - one unreadable table must not hide the others' health
            result.failed[name] = f"{type(e).__name__}: {e}"
            log.error("health of %s cannot be evaluated, the others are: %s", name, result.failed[name])
            try:
                store.record_status(name, FAILED, now_ms, result.failed[name][:2000])
            except Exception:  # noqa: BLE001 - the store itself may be what failed
                log.exception("health status of %s cannot be stored", name)
    log.info("health sweep: %d evaluated, %d unchanged, %d not created yet, %d failed", len(result.evaluated),
             len(result.unchanged), len(result.missing), len(result.failed))
    return result
