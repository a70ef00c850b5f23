"""What one rewrite_data_files call costs, by its options, on identical table states.

The compaction benchmark's `orders` table (workload.py) after `intervals` CDC intervals; the
planner's call for it (the partitions the threshold run would rewrite) is run with each variant of
options, the table set back to the same snapshot before every run, variants taken round-robin
`repeats` times after `warm_up` unmeasured rounds (median CPU seconds and wall time):

* one_commit: the planner's first attempt (no partial progress: partial_progress on_conflict);
* one_commit_2_groups_at_once: the same options again (the policy's default is 2 groups at
  once): how far two runs of one call differ;
* one_commit_5_groups_at_once: max-concurrent-file-group-rewrites 5 (Iceberg's default);
* pp_one_commit: partial progress on, max-commits 1 (the same single commit);
* pp_3_commits: partial progress on, max-commits 3 (partial_progress always, the shipped default
  of max_commits_per_call);
* pp_commit_per_group: partial progress on, one commit per file group;
* top_1, top_4, top_8: the first call over the 1, 4 and 8 partitions that save the most files
  (what a call costs apart from its partitions);
* tuned_cron: the compaction benchmark's tuned cron (whole table, min-input-files 2);
* one_commit_iceberg_drop: one_commit with Iceberg's remove-dangling-deletes on (two Spark jobs
  over the table's entries find the delete files the rewrite left dangling, then a commit);
* one_commit_lakeops_drop: one_commit, then the planner's remove_dangling_delete_files action
  (lakeops.spark.dangling: pyiceberg finds them, one commit).

CPU seconds are the JVM's plus this process's (pyiceberg's manifest reads for the lakeops drop).
"""

from __future__ import annotations

import dataclasses
import shutil
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import Cost, CpuMeter, markdown_table
from benchmarks.compaction.workload import TUNED_CRON_ACTION, Scenario, bench_config, land_and_ingest, planned_fold

TABLE = "orders_call"


@dataclass(frozen=True)
class Sizes:
    intervals: int = 3
    """5-minute CDC intervals before the call."""
    changes_per_minute: int = 26
    seed: int = 17
    repeats: int = 7
    warm_up: int = 2
    """Unmeasured rounds over every variant first."""
    history_days: int = 60
    history_orders_per_day: int = 10000


FULL = Sizes()
QUICK = Sizes(repeats=1, warm_up=0, history_days=20, history_orders_per_day=2000)


def _variants(plan) -> dict[str, tuple[Any, ...]]:
    """Each variant's actions, run in order."""
    from lakeops.compaction.calls import merge_group
    from lakeops.compaction.plan import REMOVE_DANGLING, CompactionAction

    [call] = plan.actions
    retry = call.retry_options

    def with_options(options: dict[str, str]):
        return dataclasses.replace(call, options=options, retry_options={})

    by_gain = sorted(plan.selected, key=lambda a: -a.expected_files_saved)
    return {
        "one_commit": (call,),
        "one_commit_2_groups_at_once": (with_options({**call.options, "max-concurrent-file-group-rewrites": "2"}),),
        "one_commit_5_groups_at_once": (with_options({**call.options, "max-concurrent-file-group-rewrites": "5"}),),
        "pp_one_commit": (with_options({**retry, "partial-progress.max-commits": "1"}),),
        "pp_3_commits": (with_options({**retry, "partial-progress.max-commits": "3"}),),
        "pp_commit_per_group": (with_options({**retry, "partial-progress.max-commits": str(len(plan.selected))}),),
        **{f"top_{k}": (merge_group(by_gain[:k]),) for k in (1, 4, 8) if k < len(by_gain)},
        "tuned_cron": (TUNED_CRON_ACTION,),
        "one_commit_iceberg_drop": (with_options({**call.options, "remove-dangling-deletes": "true"}),),
        "one_commit_lakeops_drop": (call, CompactionAction(REMOVE_DANGLING, "", None, "dangling delete files")),
    }


def run(args: Sizes) -> dict[str, Any]:
    from lakeops.catalog import load_catalog
    from lakeops.compaction.plan import REMOVE_DANGLING
    from lakeops.spark.compact import run_action
    from lakeops.spark.dangling import remove_dangling_deletes
    from lakeops.spark.session import build_session

    work = Path(tempfile.mkdtemp(prefix="lakeops-bench-compaction-call-"))
    config = bench_config(work, [Scenario("call", "threshold")], {}, {})
    spark = build_session(config, "lakeops compaction call benchmark", master="local[2]")
    spark.sparkContext.setLogLevel("ERROR")
    meter = CpuMeter(spark)
    table, catalog_name = config.qualified(TABLE), config.catalog.name
    land_and_ingest(spark, config, TABLE, args.intervals, args.changes_per_minute, args.seed, args.history_days,
                    args.history_orders_per_day)
    loaded, health, plan = planned_fold(config, TABLE, args.intervals)
    variants = _variants(plan)
    snapshot_id = loaded.current_snapshot().snapshot_id
    print(f"{health.data_files} data files, {health.delete_files} delete files; the call covers "
          f"{len(plan.selected)} partitions; variants: {', '.join(variants)}", flush=True)

    catalog, identifier = load_catalog(config.catalog), config.identifier(TABLE)

    def reset() -> None:
        spark.sql(f"CALL {catalog_name}.system.set_current_snapshot(table => '{table}', snapshot_id => {snapshot_id})").collect()

    def run_variant(actions) -> dict[str, int]:
        outputs: dict[str, int] = {}
        for action in actions:
            outcome = (remove_dangling_deletes(spark, catalog, identifier, table, action, 1) if action.kind == REMOVE_DANGLING
                       else run_action(spark, catalog_name, table, action))
            if outcome.status != "done":
                raise RuntimeError(f"{action.kind} ended {outcome.status}: {outcome.error}")
            outputs.update(outcome.outputs)
        return outputs

    for _ in range(args.warm_up):  # the JVM keeps compiling for a while: every variant runs unmeasured first
        for actions in variants.values():
            reset()
            run_variant(actions)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in variants}
    for repeat in range(args.repeats):
        for name, actions in variants.items():
            reset()
            cost = Cost()
            with meter.measure(cost):
                outputs = run_variant(actions)
            runs[name].append({"cpu_s": round(cost.cpu_s, 3), "jvm_cpu_s": cost.jvm_cpu_s, "wall_s": round(cost.wall_s, 3),
                               "rewritten_files": outputs.get("rewritten_data_files_count", 0),
                               "removed_delete_files": outputs.get("removed_delete_files_count", 0)})
        print(f"repeat {repeat + 1} of {args.repeats} done", flush=True)
    spark.stop()
    shutil.rmtree(work, ignore_errors=True)
    return {"args": dataclasses.asdict(args), "data_files": health.data_files, "delete_files": health.delete_files,
            "partitions": len(plan.selected), "runs": runs}


def report(result: dict[str, Any]) -> str:
    rows = []
    for name, runs in result["runs"].items():
        rows.append([name, runs[0]["rewritten_files"], runs[0]["removed_delete_files"],
                     f"{statistics.median(r['cpu_s'] for r in runs):.2f}", f"{statistics.median(r['wall_s'] for r in runs):.2f}",
                     " ".join(f"{r['cpu_s']:.2f}" for r in runs)])
    return (f"One rewrite call on the compaction benchmark's `orders` table after {result['args']['intervals']} CDC "
            f"intervals ({result['data_files']} data files, {result['delete_files']} delete files; the planner's call "
            f"covers {result['partitions']} partitions), the table set back to the same snapshot before every run; "
            f"{result['args']['warm_up']} unmeasured rounds, then {result['args']['repeats']} runs of each, round-robin.\n\n"
            + markdown_table(["variant", "files rewritten", "delete files dropped", "CPU s (median)", "wall s (median)",
                              "every run, CPU s"], rows) + "\n")
