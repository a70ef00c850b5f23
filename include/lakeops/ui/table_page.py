"""Build the index's rows and a table's page from the config, the catalog and the stored health. The index
reads no table metadata (one listing per namespace, one query of the latest rows); a table's page evaluates
that one table live and reads its stored evaluations for the charts."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from lakeops.ui.health_view import TablePage, live_score, maintenance_commits, sla_state, snapshot_points
from lakeops.ui.index_view import IndexRow, index_rows
from lakeops.ui.listing import Listing, list_tables
from lakeops.ui.timeaxis import window

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog

    from lakeops.config import LakeopsConfig

log = logging.getLogger(__name__)


def build_index(config: LakeopsConfig, catalog: Catalog, now_ms: int | None = None) -> tuple[list[IndexRow], Listing]:
    """Every maintained table's row (unsorted) and the listing it came from."""
    from lakeops.health.scores import open_scores

    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    latest = open_scores(config).latest()
    listing = list_tables(config, catalog, set(latest))
    return index_rows(listing.tables, listing.existing, latest, now_ms), listing


def build_table_page(config: LakeopsConfig, catalog: Catalog, name: str, hours: float,
                     now_ms: int | None = None) -> TablePage:
    """The page of table `name` (an identifier), less Airflow's records (runs, deadlines, actions)."""
    from pyiceberg.exceptions import NoSuchTableError

    from lakeops.cli.render.tables import explained
    from lakeops.exceptions import ConfigError
    from lakeops.health.scores import open_scores
    from lakeops.tables.effective import effective

    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    try:
        spec = config.table(name)
    except ConfigError:
        spec = None
    try:
        loaded = catalog.load_table(name)
    except NoSuchTableError:
        loaded = None
    page = TablePage(name, loaded is not None, now_ms)
    store = open_scores(config)
    latest = store.latest_of(name)
    if loaded is not None and spec is not None:
        spec = effective(spec, loaded)
        try:
            page.score, page.inputs, page.health = live_score(loaded, spec, now_ms, config.health.growth_window_hours)
        except Exception as e:  # noqa: BLE001 - the stored figures still make a page
            log.exception("live health of %s failed; the last stored evaluation is shown", name)
            page.score_error = f"{type(e).__name__}: {e}"
    if page.score is None and latest is not None and latest.evaluated is not None:
        from lakeops.health.score import score

        page.inputs = latest.evaluated.inputs
        page.score = score(page.inputs, now_ms)
    if loaded is not None:
        page.snapshots = snapshot_points(loaded)
        page.commits = maintenance_commits(page.snapshots, loaded)
    since = now_ms - int(hours * 3600 * 1000)
    page.history = store.read(name, since_ms=since)
    page.window = window([r.evaluated_at_ms for r in page.history], now_ms, hours)
    if spec is not None:
        page.policy = explained(spec)
    page.sla = sla_state(page.inputs, spec.freshness_sla_minutes if spec else None, now_ms, name)
    page.models = _models(config, catalog, name)
    return page


def _models(config: LakeopsConfig, catalog: Catalog, name: str) -> list[dict]:
    """The status of the ETL model writing the table (none for other tables); a failure leaves the rest of the page."""
    from lakeops.etl.status import model_status

    model = config.model_writing(name)
    try:
        return [model_status(catalog, config, model.name)] if model is not None else []
    except Exception:  # noqa: BLE001 - the table's own figures still make a page
        log.exception("the ETL status of %s's model failed", name)
        return []
