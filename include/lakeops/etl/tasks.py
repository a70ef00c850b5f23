"""The Airflow side of an ETL model's run: whether it has anything to do, planned from the catalog's metadata in the
worker (pyiceberg, no Spark), so that a run whose sources are all at their watermarks starts no Spark job."""

from __future__ import annotations

import logging

from lakeops.config import load_config
from lakeops.etl.plan import choose_backfill_dates

log = logging.getLogger(__name__)


def run_has_work(model: str, full_recompute: bool, run_type: str | None, interval_start: str | None,
                 from_date: str | None, to_date: str | None) -> bool:
    """False when the run would be a no-op (every source at its watermark); a full recompute or a backfill always
    has work. The Spark job plans again when it starts: a source that commits in between is read by that run."""
    from lakeops.catalog import load_catalog
    from lakeops.etl.inputs import plan_from_catalog

    dates = choose_backfill_dates(run_type, interval_start, from_date, to_date)
    config = load_config()
    plan = plan_from_catalog(load_catalog(config.catalog), config, model, full=full_recompute, backfill_dates=dates)
    if plan.mode == "noop":
        log.info("%s: %s; no Spark job is started", model, plan.reason)
        return False
    log.info("%s: a %s run (%s)", model, plan.mode, plan.reason)
    return True
