"""Part C, what zonemaps cost the writes: the same landed events ingested into one table per variant:

* none: lakeops' ingest with no zonemap columns configured;
* micro: lakeops' ingest as shipped (write_micro_zonemap after each commit);
* master: the baseline micro zonemaps replace, one master zonemap updated in every commit
  (master_baseline);
* master, seeded: the same, its master starting with the entries of many files
  (master_baseline.synthetic_entries), as the master of a table that already holds them would.

Each round ingests fresh intervals into every variant's table, in a rotating order, with
`writers` concurrent writers (threads, one Spark session each, on one local Spark) that take the
round's intervals in turn. A first untimed round warms everything up. Throughput is committed rows / round wall time.
"""

from __future__ import annotations

import logging
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from benchmarks.common import ingest_commits, writer_session
from benchmarks.ingest_and_commits.master_baseline import ingest_with_master, seed_master, synthetic_entries
from lakeops.catalog import load_catalog
from lakeops.config import LakeopsConfig
from lakeops.ingest.plan import plan_ingest
from lakeops.spark.ingest_events import ensure_tables, run_ingest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Variant:
    name: str
    table: str
    master: bool = False
    seeded: bool = False


VARIANTS = (
    Variant("no zonemap", "events_none"),
    Variant("micro zonemap (lakeops)", "events_micro"),
    Variant("master zonemap in every commit", "events_master", master=True),
    Variant("master in every commit, seeded", "events_master_seeded", master=True, seeded=True),
)


@dataclass(frozen=True)
class Round:
    variant: str
    round: int
    writers: int
    batches: int
    rows: int
    seconds: float
    commits: int
    lock_wait_s: float
    lock_held_s: float

    @property
    def rows_per_s(self) -> float:
        return self.rows / self.seconds


def _writer(session: SparkSession, config: LakeopsConfig, variant: Variant,
            intervals: list[tuple[datetime, datetime]]) -> tuple[int, float, float]:
    rows, waited, held = 0, 0.0, 0.0
    for start, end in intervals:
        plan = plan_ingest(config, variant.table, start, end)
        if variant.master:
            result, w, h = ingest_with_master(session, config, variant.table, plan)
            waited, held = waited + w, held + h
        else:
            result = run_ingest(session, config, variant.table, plan)
        if result.status != "committed":
            raise RuntimeError(f"{variant.name}: batch {plan.batch_id} was {result.status}, not committed")
        rows += result.rows
    return rows, waited, held


def run_ingest_rounds(spark: SparkSession, config: LakeopsConfig, start: datetime, rounds: int, writers: int,
                      batches_per_writer: int, batch_minutes: int, seed_entries: int,
                      variants: tuple[Variant, ...] = VARIANTS, warm_up: bool = True) -> list[Round]:
    """Ingest (rounds + 1) x writers x batches_per_writer intervals of batch_minutes into every
    variant (the seeded master starting with seed_entries entries); the first round is a warm-up
    and is not returned."""
    catalog = load_catalog(config.catalog)
    sessions = {}
    for v in variants:
        sessions[v.name] = [writer_session(spark, config) for _ in range(writers)]
        ensure_tables(sessions[v.name][0], catalog, config, v.table)
        if v.seeded:
            table, spec = catalog.load_table(config.identifier(v.table)), config.table(v.table)
            seed_master(table, synthetic_entries(table, spec.zonemap.columns, spec.zonemap.bloom_columns, seed_entries))
    per_round = writers * batches_per_writer
    step = timedelta(minutes=batch_minutes)
    results = []
    first_timed = 1 if warm_up else 0
    for r in range(rounds + first_timed):  # round 0 warms up the JVM, the sessions and each variant's code path
        first = start + r * per_round * step
        intervals = [(first + i * step, first + (i + 1) * step) for i in range(per_round)]
        order = variants[r % len(variants):] + variants[:r % len(variants)]
        for v in order:
            before = ingest_commits(config, v.table)
            began = time.perf_counter()
            with ThreadPoolExecutor(writers) as pool:
                done = list(pool.map(_writer, sessions[v.name], [config] * writers, [v] * writers,
                                     [intervals[k::writers] for k in range(writers)]))
            seconds = time.perf_counter() - began
            result = Round(v.name, r, writers, per_round, sum(d[0] for d in done), seconds,
                           ingest_commits(config, v.table) - before, sum(d[1] for d in done), sum(d[2] for d in done))
            log.info("ingest round %d, %s: %d rows in %.1f s (%.0f rows/s), %d commits, lock waited %.1f s",
                     r, v.name, result.rows, seconds, result.rows_per_s, result.commits, result.lock_wait_s)
            if r >= first_timed:
                results.append(result)
    return results


@dataclass(frozen=True)
class IngestSummary:
    variant: str
    writers: int
    rounds: int
    batches: int
    rows: int
    rows_per_s: float
    """Median over rounds."""
    commits: int
    lock_wait_per_batch_s: float
    lock_held_per_batch_s: float
    impact_pct: float
    """Median rows/s against the no-zonemap variant's, in %: negative is slower."""


def summarize(rounds: list[Round]) -> list[IngestSummary]:
    by_variant: dict[str, list[Round]] = {}
    for r in rounds:
        by_variant.setdefault(r.variant, []).append(r)
    medians = {v: statistics.median(r.rows_per_s for r in rs) for v, rs in by_variant.items()}
    base = medians[VARIANTS[0].name]
    out = []
    order = [v.name for v in VARIANTS if v.name in by_variant]
    for v, rs in ((name, by_variant[name]) for name in order):
        batches = sum(r.batches for r in rs)
        out.append(IngestSummary(v, rs[0].writers, len(rs), batches, sum(r.rows for r in rs), medians[v],
                                 sum(r.commits for r in rs), sum(r.lock_wait_s for r in rs) / batches,
                                 sum(r.lock_held_s for r in rs) / batches, (medians[v] / base - 1) * 100))
    return out
