"""What the ingest DAG's Python tasks call: the run plan (mode and writer shares, chosen from the
config at run time) and the staged commit. pyiceberg metadata only, no Spark."""

from __future__ import annotations

import logging
from typing import Any

from lakeops.config import load_config
from lakeops.ingest.plan import parse_moment, plan_ingest, plan_run

log = logging.getLogger(__name__)


def plan_for(table: str, start: str, end: str) -> dict[str, Any]:
    """RunPlan.as_dict() of one run; a staged batch already committed gets no writers."""
    from lakeops.batches import batch_committed
    from lakeops.catalog import load_catalog

    config = load_config()
    spec = config.table(table)
    begin, finish = parse_moment(start), parse_moment(end)
    committed = False
    if spec.ingest.commit_mode == "staged":
        catalog = load_catalog(config.catalog)
        names = [config.identifier(spec.name), config.identifier(spec.quarantine_name)]
        if all(catalog.table_exists(n) for n in names):
            batch = plan_ingest(config, table, begin, finish).batch_id
            events, quarantine = (catalog.load_table(n) for n in names)
            committed = batch_committed(events, quarantine, batch)
    plan = plan_run(config, table, begin, finish, committed)
    log.info("ingest %s %s: %s mode, %d writer tasks%s", table, plan.batch_id, plan.mode, len(plan.writer_args),
             " (already committed: the committer only cleans up)" if committed else "")
    return plan.as_dict()


def commit_for(planned: dict[str, Any]) -> dict[str, Any]:
    """Commit the staged batch of a run plan (CommitResult.as_dict())."""
    from lakeops.staging.commit import commit_staged

    config = load_config()
    plan = plan_ingest(config, planned["table"], parse_moment(planned["start"]), parse_moment(planned["end"]))
    return commit_staged(config, planned["table"], plan, int(planned["writers"])).as_dict()
