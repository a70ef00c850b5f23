"""Part B, the commit path alone, without Spark's write work.

The same data files (written once by staged writers, never committed there) are committed to one
table per variant: direct, by W committer processes at once, each committing its micro-batches one
commit each (pyiceberg, with its default commit retries: 4, backoff from 100 ms, counted from its
own warning); staged, by lakeops' one committer, all files in one commit. This is what the commit
path sustains when writing data is not what limits the run (on a cluster it rarely is)."""

from __future__ import annotations

import logging
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime
from typing import TYPE_CHECKING, Any

from benchmarks.common import metadata_version, total_records
from benchmarks.ingest_and_commits.writers import Round, Variant
from lakeops.catalog import load_catalog
from lakeops.config import LakeopsConfig
from lakeops.exceptions import IngestError
from lakeops.ingest.plan import plan_ingest
from lakeops.spark.stage_events import run_stage
from lakeops.staging.commit import append_once, read_manifests
from lakeops.staging.manifest import data_file_from_dict
from lakeops.staging.plan import batch_key

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)
SOURCE = "events_files"
PYICEBERG_RETRY = "Commit failed due to a concurrent update"


def table_name(variant: Variant) -> str:
    return f"commits_{variant.mode}_w{variant.writers}"


def stage_units(spark: SparkSession, config: LakeopsConfig, start: datetime, end: datetime, units: int) -> list[list[dict]]:
    """Write the interval's files as `units` staged shares of the source table (never committed);
    returns the events data files of each share."""
    plan = plan_ingest(config, SOURCE, start, end)
    for unit in range(units):
        run_stage(spark, config, SOURCE, plan, unit, units)
    source = config.identifier(SOURCE)
    location = load_catalog(config.catalog).load_table(source).location()
    manifests = read_manifests(location, batch_key(source, plan.batch_id), plan.batch_id, units)
    return [list(m.data_files(source)) for m in manifests]


class _RetryCounter(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += PYICEBERG_RETRY in record.getMessage()


def _commit_batches(config: LakeopsConfig, identifier: str, batches: list[tuple[str, list[dict]]]) -> dict[str, Any]:
    """One direct committer: every micro-batch its own pyiceberg append, with pyiceberg's retries."""
    from pyiceberg.exceptions import CommitFailedException

    counter = _RetryCounter()
    logging.getLogger("pyiceberg.table").addHandler(counter)
    catalog = load_catalog(config.catalog)
    failed, errors = 0, []
    for batch_id, files in batches:
        table = catalog.load_table(identifier)
        partition_type = table.spec().partition_type(table.schema())
        try:
            with table.transaction() as tx:
                with tx.update_snapshot(snapshot_properties={"lakeops.batch-id": batch_id}).fast_append() as append:
                    for f in files:
                        append.append_data_file(data_file_from_dict(f, partition_type))
        except CommitFailedException as e:
            failed += 1
            errors.append(f"CommitFailedException: {str(e)[:200]}")
    return {"retries": counter.count, "failed": failed, "errors": errors}


def _ready(config: LakeopsConfig) -> None:
    """Warm a committer process: imports and the catalog connection, before the clock starts."""
    load_catalog(config.catalog)
    time.sleep(0.5)


def commit_round(config: LakeopsConfig, variant: Variant, units: list[list[dict]], batches: int, number: int) -> Round:
    name = table_name(variant)
    identifier = config.identifier(name)
    micro = variant.writers * batches
    groups = [[f for unit in units[j::micro] for f in unit] for j in range(micro)]
    rows, commits = total_records(config, name), metadata_version(config, name)
    errors: list[str] = []
    retries = failed = 0
    if variant.mode == "direct":
        # Processes, not threads: W committers really side by side (spawned: the parent holds a JVM gateway).
        with ProcessPoolExecutor(variant.writers, mp_context=multiprocessing.get_context("spawn")) as pool:
            list(pool.map(_ready, [config] * variant.writers))
            began = time.perf_counter()
            work = [[(f"r{number}.b{j:03d}", groups[j]) for j in range(k * batches, (k + 1) * batches)]
                    for k in range(variant.writers)]
            for done in pool.map(_commit_batches, [config] * variant.writers, [identifier] * variant.writers, work):
                retries, failed, errors = retries + done["retries"], failed + done["failed"], errors + done["errors"]
            seconds = time.perf_counter() - began
    else:
        began = time.perf_counter()
        try:
            _, attempts = append_once(load_catalog(config.catalog), identifier, f"r{number}", [f for g in groups for f in g],
                                      {"lakeops.writers": str(micro)})
            retries = max(attempts - 1, 0)
        except IngestError as e:
            failed, errors = 1, [str(e)[:200]]
        seconds = time.perf_counter() - began
    result = Round(variant.mode, variant.writers, number, total_records(config, name) - rows, seconds,
                   metadata_version(config, name) - commits, retries, failed, expected_rows(units), tuple(dict.fromkeys(errors)))
    log.info("commits only, round %d, %s x%d: %d rows in %.2f s (%.0f rows/s), %d commits, %d retries, %d failed",
             number, variant.mode, variant.writers, result.rows, seconds, result.rows_per_s, result.commits, retries, failed)
    return result


def run_commit_rounds(config: LakeopsConfig, variants: list[Variant], units: list[list[dict]], batches: int,
                      rounds: int) -> list[Round]:
    """Every variant commits the same files once per round (round 0 untimed), in rotating order."""
    results = []
    for number in range(rounds + 1):
        order = variants[number % len(variants):] + variants[:number % len(variants)]
        for variant in order:
            measured = commit_round(config, variant, units, batches, number)
            if number:
                results.append(measured)
    return results


def expected_rows(units: list[list[dict]]) -> int:
    return sum(int(f["record_count"]) for unit in units for f in unit)

