"""The one committer of a staged batch: commit every file its writers staged, in one Iceberg commit
per table, exactly once; write the micro zonemap; clean the staging. pyiceberg only, no Spark.

Exactly once: each attempt loads the table, looks for the batch id among the current snapshot's
ancestors (lakeops.batches) and, when it is not there, appends with pyiceberg's requirement that
the branch head is still the snapshot it checked. A commit that lost a race (another writer's or a
compaction's commit, or a second committer of the same batch) fails as a whole and the next attempt
checks again, so a retried or concurrent committer never appends a batch twice. pyiceberg's own
commit retries, which would re-apply the append without that check, are turned off for this commit.

Only files listed in the manifests of all `writers` writers are committed, and only when every
manifest is there and all writers split the same listing of the interval."""

from __future__ import annotations

import logging
import random
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from lakeops.batches import BATCH_ID_PROPERTY, batch_committed, published_snapshot
from lakeops.catalog import load_catalog
from lakeops.config import LakeopsConfig
from lakeops.exceptions import IngestError
from lakeops.failpoints import COMMITTER_AFTER_COMMIT, failpoint
from lakeops.ingest.plan import IngestPlan, check_ingest_mode
from lakeops.staging import store
from lakeops.staging.cleanup import clean_batch, clean_stale
from lakeops.staging.manifest import WriterManifest, data_file_from_dict
from lakeops.staging.plan import batch_key, claim_uri, manifest_uri

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table

log = logging.getLogger(__name__)

COMMIT_ATTEMPTS = 8
RETRY_MIN_WAIT_S = 0.1
RETRY_MAX_WAIT_S = 5.0
NUM_RETRIES_PROPERTY = "commit.retry.num-retries"


@dataclass(frozen=True)
class CommitResult:
    batch_id: str
    status: str
    """committed | already_committed | no_input"""
    writers: int
    files: int = 0
    """Landed files of the interval."""
    rows: int = 0
    quarantined: int = 0
    data_files: int = 0
    snapshot_id: int | None = None
    attempts: int = 0
    """Commit attempts of the events commit (1 without a conflict)."""
    cleaned_files: int = 0
    stale_batches: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        return asdict(self)


def read_manifests(location: str, key: str, batch_id: str, writers: int) -> list[WriterManifest]:
    """The manifests of all writers; raises when one is missing or they disagree."""
    manifests, missing = [], []
    for writer in range(writers):
        uri = manifest_uri(location, key, writer)
        text = store.read_text(uri)
        if text is None:
            missing.append(writer)
            continue
        manifests.append(WriterManifest.from_json(text, uri))
    if missing:
        raise IngestError(f"batch {batch_id}: writers {missing} of {writers} have published no manifest (still running, "
                          "failed or killed before finishing); nothing was committed. Re-run those writers (clear their "
                          "stage tasks), then the commit")
    wrong = [m.writer for m in manifests if m.batch_id != batch_id or m.writers != writers]
    if wrong:
        raise IngestError(f"batch {batch_id}: the manifests of writers {wrong} belong to another run (another batch id or "
                          f"writer count than {writers}); re-run those writers with the current configuration")
    listings = {(m.listed_files, m.listing_digest) for m in manifests}
    if len(listings) > 1:
        seen = ", ".join(f"writer {m.writer}: {m.listed_files} files" for m in manifests)
        raise IngestError(f"batch {batch_id}: writers split different listings of the interval ({seen}); files landed "
                          "while they ran, so their shares may overlap or miss files. Nothing was committed: re-run all writers")
    return manifests


def _without_commit_retries(table: Table) -> Table:
    """The same table with pyiceberg's commit retries off for commits made through it (the property
    is read from this in-memory copy only; the catalog's table properties are untouched)."""
    from pyiceberg.table import Table

    metadata = table.metadata.model_copy(update={"properties": {**table.metadata.properties, NUM_RETRIES_PROPERTY: "0"}})
    return Table(table.name(), metadata, table.metadata_location, table.io, table.catalog)


def append_once(catalog: Catalog, identifier: str, batch_id: str, files: list[dict],
                summary: dict[str, str]) -> tuple[int | None, int]:
    """Append the staged files to the table in one commit unless batch_id is already committed.
    Returns (the snapshot this call committed, or None when the batch was already there; attempts)."""
    from pyiceberg.exceptions import CommitFailedException

    for attempt in range(1, COMMIT_ATTEMPTS + 1):
        table = catalog.load_table(identifier)
        if published_snapshot(table, batch_id) is not None:
            log.info("batch %s is already committed to %s; nothing to append", batch_id, identifier)
            return None, attempt - 1
        spec = table.spec()
        stale_spec = sorted({int(f["spec_id"]) for f in files} - {spec.spec_id})
        if stale_spec:
            raise IngestError(f"batch {batch_id}: files were staged for partition spec {stale_spec} of {identifier}, whose "
                              f"spec is now {spec.spec_id}; re-run the writers")
        partition_type = spec.partition_type(table.schema())
        data_files = [data_file_from_dict(f, partition_type) for f in files]
        try:
            with _without_commit_retries(table).transaction() as tx:
                with tx.update_snapshot(snapshot_properties={BATCH_ID_PROPERTY: batch_id, **summary}).fast_append() as append:
                    for data_file in data_files:
                        append.append_data_file(data_file)
        except CommitFailedException as e:
            if attempt == COMMIT_ATTEMPTS:
                raise IngestError(f"batch {batch_id}: {identifier} changed under every one of {attempt} commit attempts "
                                  f"({e}); nothing was committed. Run the commit again") from e
            wait = min(RETRY_MIN_WAIT_S * 2 ** (attempt - 1), RETRY_MAX_WAIT_S) * random.uniform(1.0, 1.5)
            log.warning("batch %s: commit to %s lost a race (attempt %d of %d: %s); checking again in %.2f s",
                        batch_id, identifier, attempt, COMMIT_ATTEMPTS, e, wait)
            time.sleep(wait)
            continue
        snapshot = published_snapshot(catalog.load_table(identifier), batch_id)
        log.info("batch %s: committed %d staged files to %s as snapshot %s (attempt %d)", batch_id, len(files),
                 identifier, snapshot, attempt)
        return snapshot, attempt
    raise AssertionError("unreachable")


def commit_staged(config: LakeopsConfig, table: str, plan: IngestPlan, writers: int,
                  now_ms: int | None = None) -> CommitResult:
    from lakeops.spark.ingest_events import batch_summary, write_zonemap_after_commit

    check_ingest_mode(config, table, "batch")
    spec = config.table(table)
    key = batch_key(spec.name, plan.batch_id)
    catalog = load_catalog(config.catalog)
    identifiers = [config.identifier(spec.name), config.identifier(spec.quarantine_name)]
    if not all(catalog.table_exists(i) for i in identifiers):
        raise IngestError(f"batch {plan.batch_id}: tables {identifiers} do not exist yet, so no writer has run; run the "
                          "stage tasks (writers) first, then the commit")
    tables = [catalog.load_table(i) for i in identifiers]
    location = tables[0].location()
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    stale = clean_stale(tables, spec.name, spec.ingest.staging_max_age_hours, now_ms, keep=key)

    if batch_committed(tables[0], tables[1], plan.batch_id):
        cleaned = clean_batch(tables, key, plan.batch_id)
        log.info("batch %s is already committed to %s; cleaned %d staged files", plan.batch_id, plan.table, cleaned)
        return CommitResult(plan.batch_id, "already_committed", writers, cleaned_files=cleaned, stale_batches=tuple(stale))
    store.write_text(claim_uri(location, key), str(now_ms))
    manifests = read_manifests(location, key, plan.batch_id, writers)
    listed = manifests[0].listed_files
    rows, quarantined = sum(m.rows for m in manifests), sum(m.quarantined for m in manifests)
    staged = {name: [f for m in manifests for f in m.data_files(name)] for name in (spec.name, spec.quarantine_name)}
    data_files = sum(len(f) for f in staged.values())
    log.info("batch %s: %d writers staged %d data files (%d rows, %d quarantined) from %d landed files",
             plan.batch_id, writers, data_files, rows, quarantined, listed)
    gone = store.missing_files([f["path"] for files in staged.values() for f in files])
    if gone:
        raise IngestError(f"batch {plan.batch_id}: {len(gone)} staged files are gone (e.g. {gone[0]}); nothing was "
                          "committed. Re-run the writers, then the commit")
    if not data_files:
        cleaned = clean_batch(tables, key, plan.batch_id)
        log.info("batch %s: %d landed files, no rows in them; nothing to commit", plan.batch_id, listed)
        return CommitResult(plan.batch_id, "no_input", writers, listed, cleaned_files=cleaned, stale_batches=tuple(stale))

    summary = {**batch_summary(rows, quarantined, listed), "lakeops.commit-mode": "staged", "lakeops.writers": str(writers)}
    # Quarantine first, as the direct path does: a committed events batch is a finished batch.
    if staged[spec.quarantine_name]:
        append_once(catalog, identifiers[1], plan.batch_id, staged[spec.quarantine_name], summary)
    snapshot, attempts = None, 0
    if staged[spec.name]:
        snapshot, attempts = append_once(catalog, identifiers[0], plan.batch_id, staged[spec.name], summary)
    status = "committed"
    if staged[spec.name] and snapshot is None:
        status = "already_committed"  # a concurrent committer of the same batch won
    elif snapshot is not None:
        write_zonemap_after_commit(catalog, config, spec.name, snapshot)
    failpoint(COMMITTER_AFTER_COMMIT)
    cleaned = clean_batch([catalog.load_table(i) for i in identifiers], key, plan.batch_id)
    log.info("batch %s: %s %d rows in %d files (snapshot %s), quarantined %d; cleaned %d staged files", plan.batch_id,
             status, rows, len(staged[spec.name]), snapshot, quarantined, cleaned)
    return CommitResult(plan.batch_id, status, writers, listed, rows, quarantined, data_files, snapshot, attempts,
                        cleaned, tuple(stale))
