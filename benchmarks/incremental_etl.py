"""Incremental run after 1% new data vs a full recompute of the same table, side by side.

    make bench-incremental_etl            # or: python -m benchmarks.incremental_etl --days 14 --rows-per-day 40000

Builds `events` over N days (one snapshot per day) and `user_activity_hourly` from it, then, per
repetition: appends 1% new events (most in the newest day, some late ones for older hours), runs
the incremental ETL, and runs a full recompute of the same state. Reports medians of wall time,
bytes Spark read (task input metrics) and source files in scope, in benchmarks/results/.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from benchmarks.results import markdown_table, results_path

NAME = "incremental_etl"
TYPES = ("page_view", "click", "search", "add_to_cart", "purchase")
START = datetime(2026, 11, 1)


def _rows(rng: random.Random, n: int, first_day: int, days: int, prefix: str, late_share: float = 0.0,
          newest_day: int | None = None) -> list[tuple]:
    out = []
    for i in range(n):
        if newest_day is not None:
            day = newest_day if rng.random() >= late_share else newest_day - 1  # late: the day before
        else:
            day = first_day + rng.randrange(days)
        t = START + timedelta(days=day, seconds=rng.randrange(86400))
        user = int(rng.paretovariate(1.2)) % 5000
        out.append((f"{prefix}-{i}", user, f"s-{user}-{t.hour}", t, rng.choice(TYPES), "/", "web", "DE", {}, t))
    return out


def input_bytes(spark) -> int:
    """Bytes read by all tasks so far (Spark's task input metrics, summed over executors)."""
    sc = spark.sparkContext._jsc.sc()
    sc.listenerBus().waitUntilEmpty()
    execs = sc.statusStore().executorList(False)
    return sum(int(execs.apply(i).totalInputBytes()) for i in range(execs.size()))


def measure(spark, fn) -> tuple[float, int, object]:
    before = input_bytes(spark)
    started = time.perf_counter()
    result = fn()
    elapsed = time.perf_counter() - started
    return elapsed, input_bytes(spark) - before, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--days", type=int, default=14)
    parser.add_argument("--rows-per-day", type=int, default=40000)
    parser.add_argument("--repetitions", type=int, default=3)
    args = parser.parse_args()

    from lakeops.catalog import load_catalog
    from lakeops.config import parse_config
    from lakeops.etl.inputs import plan_from_catalog
    from lakeops.ingest.ddl import table_ddl
    from lakeops.spark.etl import run_etl
    from lakeops.spark.session import build_session
    import yaml

    base = Path(tempfile.mkdtemp(prefix="lakeops-bench-etl-"))
    shipped = yaml.safe_load((Path(__file__).resolve().parents[1] / "include" / "lakeops.yaml").read_text())["tables"]
    config = parse_config({"catalog": {"name": "bench", "namespace": "lakeops", "data_dir": str(base / "data")},
                           "tables": shipped}, base)
    spark = build_session(config, "lakeops bench incremental etl", master="local[2]")
    spark.sparkContext.setLogLevel("ERROR")
    catalog = load_catalog(config.catalog)
    spark.sql("CREATE NAMESPACE IF NOT EXISTS bench.lakeops")
    for statement in table_ddl(config, config.table("events")):
        spark.sql(statement)
    schema = ("event_id string, user_id bigint, session_id string, event_time timestamp, event_type string, "
              "page string, device string, country string, properties map<string,string>, ingested_at timestamp")
    rng = random.Random(7)
    for day in range(args.days):
        spark.createDataFrame(_rows(rng, args.rows_per_day, day, 1, f"d{day}"), schema).writeTo("bench.lakeops.events").append()
    total_rows = args.days * args.rows_per_day
    print(f"events: {total_rows:,} rows over {args.days} days", flush=True)
    run_etl(spark, catalog, config, plan_from_catalog(catalog, config, "user_activity_hourly"))

    new_rows = total_rows // 100
    samples: dict[str, list[tuple[float, int]]] = {"incremental": [], "full": []}
    for rep in range(args.repetitions):
        batch = _rows(rng, new_rows, 0, args.days, f"r{rep}", late_share=0.05, newest_day=args.days - 1)
        spark.createDataFrame(batch, schema).writeTo("bench.lakeops.events").append()
        for mode in ("incremental", "full"):
            plan = plan_from_catalog(catalog, config, "user_activity_hourly", full=(mode == "full"))
            assert plan.mode == mode, plan
            elapsed, read, result = measure(spark, lambda: run_etl(spark, catalog, config, plan))
            samples[mode].append((elapsed, read))
            print(f"rep {rep + 1}: {mode:<11} {elapsed:7.2f} s {read / 1e6:9.2f} MB read ({result.status}, {result.keys} keys)",
                  flush=True)

    med = {m: (statistics.median(s[0] for s in v), statistics.median(s[1] for s in v)) for m, v in samples.items()}
    rows = [[m, f"{med[m][0]:.2f}", f"{med[m][1] / 1e6:.2f}"] for m in ("incremental", "full")]
    rows.append(["incremental / full", f"{med['incremental'][0] / med['full'][0]:.1%}",
                 f"{med['incremental'][1] / max(med['full'][1], 1):.1%}"])
    table = markdown_table(["run", "wall time (s, median)", "MB read (median)"], rows)
    text = (f"# Incremental ETL vs full recompute\n\n`user_activity_hourly` from `events`: {total_rows:,} rows over "
            f"{args.days} day partitions, then {new_rows:,} new events (1%; 5% of them late, for the day before) per "
            f"repetition; medians of {args.repetitions} repetitions, local[2] Spark on a shared 2-core machine.\n\n"
            f"{table}\n\nGoal: incremental at most 5% of full.\n")
    results_path(NAME, ".md").write_text(text)
    print(text)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
    for ax, index, label in ((axes[0], 0, "wall time (s)"), (axes[1], 1, "MB read")):
        values = [med[m][index] / (1e6 if index else 1) for m in ("incremental", "full")]
        ax.bar(["incremental (1% new)", "full recompute"], values, color=["tab:green", "tab:gray"])
        ax.set_title(label)
    fig.suptitle("user_activity_hourly: incremental vs full (medians)")
    fig.tight_layout()
    fig.savefig(results_path(NAME, ".png"), dpi=100)
    spark.stop()


if __name__ == "__main__":
    main()
