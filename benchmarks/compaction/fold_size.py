"""What folding one partition costs, against the partition's size.

One `orders` table per size (the shipped schema, partitioned by day(created_at), merge-on-read),
its rows all in one day; three merge-on-read UPDATEs touch it (the results list the data and
delete files they leave), then the compaction benchmark's tuned-cron call (rewrite_data_files,
min-input-files 2, through lakeops.spark.compact.run_action) folds the partition. Each table is
set back to the same snapshot before every run; sizes are taken round-robin `repeats` times
after `warm_up` unmeasured rounds (median CPU seconds of the JVM and this process, and wall).
On a small partition the fold's cost is the Spark work around one file group; it follows the
bytes only once the partition is large.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import Cost, CpuMeter, markdown_table
from benchmarks.compaction.workload import TUNED_CRON_ACTION, Scenario, bench_config

TOUCHES = 3


@dataclass(frozen=True)
class Sizes:
    rows: tuple[int, ...] = (10_000, 100_000, 1_000_000, 10_000_000)
    """Rows of the partition, one table per size (10,000 is a day of the compaction stream)."""
    repeats: int = 7
    warm_up: int = 2
    """Unmeasured rounds over every size first."""

    def __post_init__(self) -> None:
        if len(set(self.rows)) != len(self.rows):
            raise ValueError(f"rows {self.rows}: give each size once (one table per size)")
        if any(size < TOUCHES for size in self.rows):
            raise ValueError(f"rows {self.rows}: every size needs at least {TOUCHES} rows, one for each update")


FULL = Sizes()
QUICK = Sizes(rows=(10_000, 100_000), repeats=1, warm_up=0)


def _fill(spark, table: str, rows: int) -> None:
    """`rows` orders created on one day, then TOUCHES single-row updates."""
    spark.sql(f"INSERT INTO {table} SELECT id, id % 5000, IF(id % 3 = 0, 'paid', 'open'), "
              f"CAST(id % 10000 / 100 AS DECIMAL(12, 2)), 'EUR', "
              f"timestamp'2026-11-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id % 86400), NULL "
              f"FROM range({rows})")
    for touch in range(TOUCHES):
        spark.sql(f"UPDATE {table} SET status = 'touched {touch}' WHERE order_id = {touch}")


def run(args: Sizes) -> dict[str, Any]:
    from lakeops.catalog import load_catalog
    from lakeops.spark.compact import run_action
    from lakeops.spark.ingest_cdc import ensure_merge_on_read
    from lakeops.spark.session import build_session

    work = Path(tempfile.mkdtemp(prefix="lakeops-bench-fold-size-"))
    scenarios = [Scenario(f"rows{rows}", "tuned") for rows in args.rows]
    config = bench_config(work, scenarios, {}, {})
    spark = build_session(config, "lakeops fold size benchmark", master="local[2]")
    spark.sparkContext.setLogLevel("ERROR")
    catalog, meter = load_catalog(config.catalog), CpuMeter(spark)
    tables: dict[int, dict[str, Any]] = {}
    for rows, scenario in zip(args.rows, scenarios, strict=False):
        table = config.qualified(scenario.table)
        ensure_merge_on_read(spark, catalog, config, scenario.table)
        _fill(spark, table, rows)
        loaded = catalog.load_table(config.identifier(scenario.table))
        files = loaded.inspect.files().to_pylist()
        tables[rows] = {"table": table, "snapshot_id": loaded.current_snapshot().snapshot_id,
                        "data_files": sum(1 for f in files if f["content"] == 0),
                        "delete_files": sum(1 for f in files if f["content"] != 0),
                        "bytes": sum(f["file_size_in_bytes"] for f in files)}
        print(f"{rows:,} rows: {tables[rows]['data_files']} data files, {tables[rows]['delete_files']} delete files, "
              f"{tables[rows]['bytes']:,} bytes", flush=True)

    def fold(rows: int) -> tuple[Cost, dict[str, Any]]:
        spec = tables[rows]
        spark.sql(f"CALL {config.catalog.name}.system.set_current_snapshot(table => '{spec['table']}', "
                  f"snapshot_id => {spec['snapshot_id']})").collect()
        cost = Cost()
        with meter.measure(cost):
            outcome = run_action(spark, config.catalog.name, spec["table"], TUNED_CRON_ACTION)
        if outcome.status != "done":
            raise RuntimeError(f"the fold of {spec['table']} ended {outcome.status}: {outcome.error}")
        return cost, outcome.outputs

    for _ in range(args.warm_up):  # the JVM keeps compiling for a while: every size runs unmeasured first
        for rows in args.rows:
            fold(rows)
    runs: dict[int, list[dict[str, Any]]] = {rows: [] for rows in args.rows}
    for repeat in range(args.repeats):
        for rows in args.rows:
            cost, outputs = fold(rows)
            runs[rows].append({"cpu_s": round(cost.cpu_s, 3), "wall_s": round(cost.wall_s, 3),
                               "rewritten_files": outputs.get("rewritten_data_files_count", 0),
                               "rewritten_bytes": outputs.get("rewritten_bytes_count", 0)})
        print(f"repeat {repeat + 1} of {args.repeats} done", flush=True)
    spark.stop()
    shutil.rmtree(work, ignore_errors=True)
    kept = ("data_files", "delete_files", "bytes")
    return {"args": asdict(args), "tables": {str(rows): {k: v for k, v in spec.items() if k in kept}
                                           for rows, spec in tables.items()},
            "runs": {str(rows): r for rows, r in runs.items()}}


def median_cpu(result: dict[str, Any], size: str) -> float:
    return statistics.median(r["cpu_s"] for r in result["runs"][size])


def cpu_per_mb(result: dict[str, Any]) -> float:
    """CPU seconds each MB adds to a fold, from the smallest partition to the largest (medians)."""
    sizes = sorted(result["tables"], key=lambda size: result["tables"][size]["bytes"])
    small, large = sizes[0], sizes[-1]
    megabytes = (result["tables"][large]["bytes"] - result["tables"][small]["bytes"]) / 1e6
    return (median_cpu(result, large) - median_cpu(result, small)) / megabytes


def report(result: dict[str, Any]) -> str:
    args = result["args"]
    head = (f"One partition folded by rewrite_data_files (min-input-files 2) after {TOUCHES} merge-on-read updates, "
            f"by the partition's size; the table set back to the same snapshot before every run; "
            f"{args['warm_up']} unmeasured rounds, then {args['repeats']} runs of each, round-robin.\n\n")
    rows = []
    for size, spec in result["tables"].items():
        runs = result["runs"][size]
        rows.append([f"{int(size):,}", f"{spec['bytes'] / 1e6:.2f}", f"{spec['data_files']} + {spec['delete_files']}",
                     runs[0]["rewritten_files"], f"{median_cpu(result, size):.2f}",
                     f"{statistics.median(r['wall_s'] for r in runs):.2f}",
                     " ".join(f"{r['cpu_s']:.2f}" for r in runs)])
    table = markdown_table(["rows", "MB", "data + delete files", "files rewritten", "CPU s (median)",
                            "wall s (median)", "every run, CPU s"], rows)
    tail = (f"\n\nFrom the smallest partition to the largest, each MB added {cpu_per_mb(result):.3f} CPU s "
            f"to the fold (medians).\n") if len(rows) > 1 else "\n"
    return head + table + tail
