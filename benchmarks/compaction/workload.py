"""The compaction benchmark's workload and its kinds of maintenance, each through the project's
own code paths.

Workload: an `orders` CDC stream from lakeops.generator.generate_cdc with a history. The
connector's initial snapshot (history_days of orders, history_orders_per_day a day) lands first,
then a continuous stream whose updates and deletes favour recent orders (a Zipf weight on the
order's age in days, order_age_skew): most changes hit today's and yesterday's partitions of
`day(created_at)`, a long tail hits older days. Every table copy is fed by the CDC ingest job's
library function (lakeops.spark.ingest_cdc.run_cdc_ingest: the exactly-once MERGE the
`ingest_cdc` DAG runs), one 5-minute interval at a time.

Maintenance:
* none: never compacted;
* fixed: a hand-written cron job: Iceberg's rewrite_data_files on the whole table with Iceberg's
  defaults every N simulated minutes (run through lakeops.spark.compact.run_action);
* tuned: the same cron tuned for a CDC table: min-input-files 2, so every partition holding two
  or more files is folded, every N simulated minutes;
* threshold: what `compact_tables` does: health from metadata (lakeops.health), the sensors'
  threshold checks (lakeops.health.thresholds.breaches with the table's configured limits), the
  pure planner (lakeops.compaction.plan.plan_configured) and the runner
  (lakeops.spark.compact_table.run_compaction), checked after every interval as a sensor poking
  every 5 minutes would.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.common import demo_table
from lakeops.compaction.plan import REWRITE_DATA, CompactionAction
from lakeops.config import LakeopsConfig, parse_config

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

START = datetime(2026, 11, 21, 23, 0, tzinfo=UTC)
"""The stream starts an hour before midnight: a new day partition becomes the hot one mid-run."""
BATCH = timedelta(minutes=5)
PARTITION_BY = "day(created_at)"
"""The shipped `orders` table's partitioning."""
FRESH = "orders_fresh"

# The fixed schedule's call: rewrite_data_files on the whole table, no options (Iceberg's defaults:
# binpack, min-input-files 5, delete-ratio-threshold 0.3, target size from the table, no partial
# progress). The runner only adds the CALL around it.
CRON_ACTION = CompactionAction(REWRITE_DATA, "", None, "fixed schedule: the whole table, Iceberg's defaults",
                               strategy="binpack")
TUNED_CRON_ACTION = CompactionAction(REWRITE_DATA, "", None, "fixed schedule: the whole table, min-input-files 2",
                                     strategy="binpack", options={"min-input-files": "2"})


@dataclass(frozen=True)
class Scenario:
    name: str
    kind: str
    """none | fixed | tuned | threshold"""
    every: int = 0
    """fixed, tuned: simulated minutes between runs."""
    trigger: float | None = None
    """threshold: the table's max_file_amplification, when not the policy's."""

    @property
    def table(self) -> str:
        return f"orders_{self.name}"


WARM_UP_TABLE = "orders_warmup"
"""A scratch copy on which every kind of compaction runs once before the stream, unmeasured."""
WARM_UP_POLICY = {"max_file_amplification": 1.05, "min_fragment_files": 1}
"""The scratch copy's trigger fires on any extra file, so its planner has a fold to run after one MERGE."""


def parse_scenario(text: str) -> Scenario:
    """'none', 'threshold', 'threshold:1.8' (its max_file_amplification), 'fixed:30' or 'tuned:10'
    (a cron every 30 or 10 simulated minutes)."""
    kind, _, every = text.partition(":")
    if kind in ("fixed", "tuned"):
        if not every.isdigit() or int(every) % 5:
            raise ValueError(f"scenario {text!r}: give the schedule's period in minutes, a multiple of 5, e.g. {kind}:30")
        return Scenario(f"{kind}{every}", kind, int(every))
    if kind == "threshold" and every:
        try:
            trigger = float(every)
        except ValueError:
            trigger = 0.0
        if not trigger > 1:
            raise ValueError(f"scenario {text!r}: give the trigger's max_file_amplification, above 1, e.g. threshold:1.8")
        return Scenario(f"threshold{trigger:g}".replace(".", "_"), kind, trigger=trigger)
    if kind in ("none", "threshold") and not every:
        return Scenario(kind, kind)
    raise ValueError(f"scenario {text!r} is unknown; use none, threshold[:<amplification>], fixed:<minutes> or tuned:<minutes>")


def bench_config_data(work: Path, scenarios: list[Scenario], policy: dict[str, Any], health: dict[str, Any],
                      partition_by: str = PARTITION_BY) -> dict[str, Any]:
    """The content of a config file with one `orders`-shaped table per scenario (the shipped
    table's policy, with the scenario's own trigger if it has one; its partitioning unless
    `partition_by` says otherwise), the warm-up's scratch copy, and a catalog of its own under `work`."""
    table = demo_table("orders", partition_by=[partition_by], compaction=policy, health=health)
    tables = {s.table: table if s.trigger is None else {**table, "compaction": {**policy, "max_file_amplification": s.trigger}}
              for s in scenarios}
    tables[WARM_UP_TABLE] = {**table, "compaction": {**policy, **WARM_UP_POLICY}}
    return {"catalog": {"name": f"bench{uuid.uuid4().hex[:8]}", "namespace": "lakeops", "data_dir": str(work / "data")},
            "tables": tables}


def bench_config(work: Path, scenarios: list[Scenario], policy: dict[str, Any], health: dict[str, Any],
                 partition_by: str = PARTITION_BY) -> LakeopsConfig:
    """The parsed config of bench_config_data."""
    return parse_config(bench_config_data(work, scenarios, policy, health, partition_by), work)


def fresh_copy(spark: SparkSession, config: LakeopsConfig, source: str) -> str:
    """A freshly compacted copy of `source`: the same rows written anew, one file per partition."""
    target = config.qualified(FRESH)
    spark.sql(f"DROP TABLE IF EXISTS {target} PURGE")
    spark.sql(f"CREATE TABLE {target} USING iceberg PARTITIONED BY ({config.table(source).create.partition_by[0].spark_ddl()}) "
              f"TBLPROPERTIES ('format-version' = '2') AS SELECT * FROM {config.qualified(source)}")
    return target


def queries(now: datetime) -> dict[str, str]:
    """A full scan (a daily report over all orders) and the last 24 hours (a live dashboard)."""
    since = (now - timedelta(hours=24)).strftime("%Y-%m-%d %H:%M:%S")
    return {
        "full": "SELECT status, count(*), sum(amount), count(DISTINCT user_id) FROM {t} GROUP BY status",
        "recent": f"SELECT status, count(*), sum(amount) FROM {{t}} WHERE created_at >= TIMESTAMP '{since}' GROUP BY status",
    }


def land_and_ingest(spark: SparkSession, config: LakeopsConfig, table: str, intervals: int,
                    changes_per_minute: int = 26, seed: int = 17, history_days: int = 60,
                    history_orders_per_day: int = 10000) -> None:
    """The benchmark's stream for `intervals` 5-minute intervals landed (by default 60 days of
    history, 10,000 orders a day, Zipf 2.0 on the order's age), then the initial snapshot and every
    interval applied to `table` by the CDC ingest job."""
    from lakeops.generator import generate_cdc
    from lakeops.ingest.plan import plan_ingest
    from lakeops.spark.ingest_cdc import run_cdc_ingest

    generate_cdc(config.landing_root, START, intervals * 5, changes_per_minute, seed=seed,
                 history_days=history_days, history_orders_per_day=history_orders_per_day, order_age_skew=2.0)
    for step in range(-1, intervals):  # the initial snapshot, then the stream
        start = START + step * BATCH
        run_cdc_ingest(spark, config, table, plan_ingest(config, table, start, start + BATCH))


def planned_fold(config: LakeopsConfig, table: str, intervals: int) -> tuple[Any, Any, Any]:
    """(the table as pyiceberg loads it, its health, the planner's plan) after the stream; refuses
    a state on which the planner has nothing to fold."""
    from lakeops.catalog import load_catalog
    from lakeops.compaction.plan import plan_configured
    from lakeops.health.compute import compute_health

    spec = config.table(table)
    loaded = load_catalog(config.catalog).load_table(config.identifier(table))
    health = compute_health(loaded, spec.compaction)
    plan = plan_configured(health, spec)
    if not plan.actions:
        raise RuntimeError(f"after {intervals} CDC intervals the planner has nothing to fold on {table}; "
                           f"give more intervals (3 make a fold of 14 partitions on 60 days of history)")
    return loaded, health, plan
