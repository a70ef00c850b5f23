"""The compaction benchmark's CDC stream replayed through a count of files: every maintenance
policy measured at every interval, on the same stream, without Spark's timing noise.

A real run (benchmarks/compaction.py) times queries on a 2-core machine, where one variant's
full scan varies by 10% from one point to the next, and can afford only a few variants. This
model counts what those timings follow: the files a full scan opens. It takes the stream the
benchmark lands (the same generator, seed and rates), and for each 5-minute interval adds to
each partition what the CDC MERGE adds there: one data file when rows are inserted or updated,
and one position-delete file for each older data file that loses rows (Iceberg's Spark writer
keeps one delete file per data file and replaces it on the next delete). A fold rewrites a
partition into one file. It ignores file sizes (every partition here is far below the target
file size) and the planner's per-partition rules (fragments, delete-file counts), which the
table-wide trigger pre-empts on this stream.

`--check NAME` replays a saved real run and compares the model's data and delete files with
what the real tables held at each measured point.

Compute is modelled from the threshold variant's real runs (RUN_CPU_S + PARTITION_CPU_S per
partition): a figure to rank policies by, not a measurement.

    python -m benchmarks.compaction_model                              # steady, varying, busy and quiet
    python -m benchmarks.compaction_model --check compaction_steady_warm
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.compaction_report import p90
from benchmarks.compaction_workload import BATCH, START
from benchmarks.results import RESULTS_DIR, markdown_table, results_path
from lakeops.config import CompactionPolicy

RUN_CPU_S, PARTITION_CPU_S = 0.43, 0.052
"""CPU s of one compaction run and of each partition it folds: a least-squares fit to the
threshold variant's folds in compaction_steady_warm and compaction_busy_quiet (1 to 21 partitions,
0.16 to 2.1 CPU s a run)."""
DELETE_RATIO = 0.3
"""Iceberg's delete-ratio-threshold: a cron also rewrites a lone file that lost this share of its rows."""
STREAMS = {
    "steady": {"hours": 3.0, "rate_profile": (), "rate_block_minutes": 60},
    "varying": {"hours": 3.0, "rate_profile": (0.25, 3.0, 1.0), "rate_block_minutes": 30},
    "busy and quiet": {"hours": 4.0, "rate_profile": (3.0, 0.1), "rate_block_minutes": 60},
}
"""The saved real runs' streams (compaction_steady_warm, compaction_variable, compaction_busy_quiet)."""
CRONS = (10, 15, 20, 25, 30, 40)
TRIGGERS = (1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 2.0, 2.2)
WORST_FIRST = ((1.5, 1.2), (1.8, 1.1), (1.8, 1.2), (2.0, 1.2))
"""(fire at, fold down to): the trigger folding only its worst partitions, an alternative lakeops rejects."""
SETTLED = ((1.8, 5), (1.8, 10), (2.0, 10))
"""(fire at, minutes): the trigger folding only partitions dirty for that long, another alternative lakeops rejects."""


@dataclass(frozen=True)
class Change:
    key: int
    partition: str
    kind: str
    """insert | update | delete: the net change of one key over one interval."""


def _day(micros: int) -> str:
    return datetime.fromtimestamp(micros / 1e6, UTC).date().isoformat()


def net_changes(history: dict[int, str], events: Iterable[dict[str, Any]]) -> list[Change]:
    """One interval's Debezium order events reduced to the net change per key, as the MERGE
    applies them (`history` maps the keys already in the table to their partition; updated in place)."""
    final: dict[int, dict[str, Any] | None] = {}
    partition: dict[int, str] = {}
    for event in events:
        row = event["after"] or event["before"]
        final[row["order_id"]] = event["after"]
        partition[row["order_id"]] = _day(row["created_at"])
    changes = []
    for key, after in final.items():
        if key in history:
            changes.append(Change(key, partition[key], "update" if after is not None else "delete"))
            if after is None:
                del history[key]
        elif after is not None:
            changes.append(Change(key, partition[key], "insert"))
            history[key] = partition[key]
    return changes


def replay_stream(stream: dict[str, Any], seed: int = 17, changes_per_minute: int = 26, history_days: int = 60,
                  history_orders_per_day: int = 10000, skew: float = 2.0) -> tuple[dict[int, str], list[list[Change]]]:
    """The benchmark's orders stream (lakeops.generator.generate_cdc with its arguments): the initial
    snapshot's keys by partition, and each interval's net changes."""
    from lakeops.generator import generate_cdc

    root = Path(tempfile.mkdtemp(prefix="lakeops-compaction-model-"))
    try:
        intervals = int(stream["hours"] * 60) // 5
        generate_cdc(str(root), START, intervals * 5, changes_per_minute, seed=seed, history_days=history_days,
                     history_orders_per_day=history_orders_per_day, order_age_skew=skew,
                     rate_profile=stream["rate_profile"], rate_block_minutes=stream["rate_block_minutes"])
        snapshot: dict[int, str] = {}
        by_interval: list[list[dict[str, Any]]] = [[] for _ in range(intervals)]
        for path in sorted((root / "cdc" / "orders").rglob("*.jsonl")):
            for line in path.read_text().splitlines():
                event = json.loads(line)
                if event["op"] == "r":
                    snapshot[event["after"]["order_id"]] = _day(event["after"]["created_at"])
                    continue
                moment = datetime.fromtimestamp(event["source"]["ts_ms"] / 1000, UTC)
                by_interval[int((moment - START) / BATCH)].append(event)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    keys = dict(snapshot)
    return snapshot, [net_changes(keys, events) for events in by_interval]


class FileCount:
    """A table's data files and position-delete files per partition."""

    def __init__(self, snapshot: dict[int, str]) -> None:
        self.file_of: dict[int, tuple[str, str]] = {}
        self.rows: dict[tuple[str, str], int] = defaultdict(int)
        self.deleted: dict[tuple[str, str], int] = defaultdict(int)
        self.files: dict[str, set[tuple[str, str]]] = defaultdict(set)
        self.folds = 0
        for key, partition in snapshot.items():
            self._place(key, (partition, "snapshot"))

    def _place(self, key: int, file: tuple[str, str]) -> None:
        self.file_of[key] = file
        self.rows[file] += 1
        self.files[file[0]].add(file)

    def apply(self, changes: Iterable[Change], interval: int) -> None:
        for c in changes:
            if c.kind in ("update", "delete"):
                self.deleted[self.file_of.pop(c.key)] += 1
            if c.kind in ("update", "insert"):
                self._place(c.key, (c.partition, f"merge{interval}"))

    def data_files(self, partition: str) -> int:
        return len(self.files[partition])

    def delete_files(self, partition: str) -> int:
        return sum(1 for f in self.files[partition] if self.deleted[f])

    def scan_files(self, partition: str) -> int:
        return self.data_files(partition) + self.delete_files(partition)

    def scanned(self) -> int:
        return sum(self.scan_files(p) for p in self.files)

    def compacted(self) -> int:
        """One file a partition: every partition here is far below the target file size."""
        return len(self.files)

    def fold(self, partition: str) -> None:
        self.folds += 1
        new = (partition, f"fold{self.folds}")
        for key in [k for k, f in self.file_of.items() if f[0] == partition]:
            self._place(key, new)
        self.files[partition] = {new}


Policy = Callable[[FileCount, int], list[str]]
"""(table, minute) -> the partitions to fold after that interval's MERGE."""


def cron(every: int, min_input_files: int = 2) -> Policy:
    """rewrite_data_files on the whole table every `every` minutes: partitions with min_input_files
    data files (the tuned cron: 2; Iceberg's default: 5), or a file that lost DELETE_RATIO of its rows."""
    def choose(table: FileCount, minute: int) -> list[str]:
        if minute % every:
            return []
        return [p for p, files in table.files.items() if len(files) >= min_input_files
                or any(table.rows[f] and table.deleted[f] >= DELETE_RATIO * table.rows[f] for f in files)]
    return choose


def threshold(amplification: float, min_excess_files: int = CompactionPolicy().min_fragment_files) -> Policy:
    """lakeops' table-wide rule (lakeops.health.layout.over_file_amplification), checked after every
    interval: when a full scan opens `amplification` times the files of a compacted copy and
    min_excess_files more, fold every partition with an extra file."""
    def choose(table: FileCount, minute: int) -> list[str]:
        scanned, compacted = table.scanned(), table.compacted()
        if scanned >= amplification * compacted and scanned - compacted >= min_excess_files:
            return [p for p in table.files if table.scan_files(p) > 1]
        return []
    return choose


def worst_first(amplification: float, fold_to: float,
                min_excess_files: int = CompactionPolicy().min_fragment_files) -> Policy:
    """The same trigger folding only the partitions with the most extra files, until a full scan
    would open `fold_to` times the files of a compacted copy: fewer partitions a run, more runs."""
    fires = threshold(amplification, min_excess_files)

    def choose(table: FileCount, minute: int) -> list[str]:
        scanned, limit, chosen = table.scanned(), fold_to * table.compacted(), []
        for partition in sorted(fires(table, minute), key=lambda p: -table.scan_files(p)):
            if scanned <= limit:
                break
            chosen.append(partition)
            scanned -= table.scan_files(partition) - 1
        return chosen
    return choose


def settled(amplification: float, minutes: int,
            min_excess_files: int = CompactionPolicy().min_fragment_files) -> Policy:
    """The same trigger folding only the partitions that have held an extra file for `minutes` or
    more (it must see every interval): the rest wait for the next run, so folds are staggered."""
    fires = threshold(amplification, min_excess_files)
    dirty_since: dict[str, int] = {}

    def choose(table: FileCount, minute: int) -> list[str]:
        for partition in table.files:
            if table.scan_files(partition) > 1:
                dirty_since.setdefault(partition, minute)
            else:
                dirty_since.pop(partition, None)
        chosen = [p for p in fires(table, minute) if minute - dirty_since[p] >= minutes]
        for partition in chosen:
            del dirty_since[partition]
        return chosen
    return choose


def simulate(snapshot: dict[int, str], intervals: list[list[Change]], policy: Policy) -> dict[str, Any]:
    """Runs, partitions folded, modelled compaction CPU, and the files a full scan opens against a
    compacted copy after each interval (median, p90): what a reader finds during the interval."""
    table, runs, folds, amplification = FileCount(snapshot), 0, 0, []
    for i, changes in enumerate(intervals):
        table.apply(changes, i)
        chosen = policy(table, (i + 1) * 5)
        for partition in chosen:
            table.fold(partition)
        runs, folds = runs + bool(chosen), folds + len(chosen)
        amplification.append(table.scanned() / table.compacted())
    return {"runs": runs, "folds": folds, "cpu_s": round(RUN_CPU_S * runs + PARTITION_CPU_S * folds, 2),
            "amp_median": round(statistics.median(amplification), 3), "amp_p90": round(p90(amplification), 3)}


def policies() -> dict[str, Policy]:
    return {**{f"tuned{m}": cron(m) for m in CRONS}, **{f"threshold {a:g}": threshold(a) for a in TRIGGERS},
            **{f"worst-first {a:g} to {to:g}": worst_first(a, to) for a, to in WORST_FIRST},
            **{f"settled {a:g} for {m}": settled(a, m) for a, m in SETTLED}}


def check(name: str) -> tuple[int, int, list[str]]:
    """Replay a saved real run's stream; per measured point and cron or uncompacted variant, do the
    model's data and applied delete files equal the real table's? (matching, compared, mismatches)"""
    result = json.loads((RESULTS_DIR / f"{name}.json").read_text())
    args = result["args"]
    stream = {"hours": args["hours"], "rate_profile": tuple(args.get("rate_profile") or ()),
              "rate_block_minutes": args.get("rate_block_minutes", 60)}
    snapshot, intervals = replay_stream(stream, args["seed"], args["changes_per_minute"], args["history_days"],
                                        args["history_orders_per_day"], args["skew"])
    chosen = {s["name"]: (cron(s["every"], 2 if s["kind"] == "tuned" else 5) if s["kind"] in ("fixed", "tuned")
                          else (lambda table, minute: []))
              for s in result["scenarios"] if s["kind"] != "threshold"}
    tables = {name: FileCount(snapshot) for name in chosen}
    points = {p["minute"]: p["health"] for p in result["series"]}
    matched, compared, mismatches = 0, 0, []
    for i, changes in enumerate(intervals):
        minute = (i + 1) * 5
        for variant, table in tables.items():
            table.apply(changes, i)
            for partition in chosen[variant](table, minute):
                table.fold(partition)
            if minute in points:
                real = points[minute][variant]
                model = (sum(table.data_files(p) for p in table.files), sum(table.delete_files(p) for p in table.files))
                compared += 1
                if model == (real["data_files"], real["applied_delete_files"]):
                    matched += 1
                else:
                    mismatches.append(f"{variant} at {minute}: model {model}, real "
                                      f"{(real['data_files'], real['applied_delete_files'])}")
    return matched, compared, mismatches


def report(results: dict[str, dict[str, dict[str, Any]]]) -> str:
    parts = [f"Modelled from the benchmark's own CDC streams (files counted, not timed; compaction CPU = "
             f"{RUN_CPU_S} s a run + {PARTITION_CPU_S} s a folded partition, fitted to real runs). Files a full "
             f"scan opens against a compacted copy, after every 5-minute interval; least flat last."]
    for stream, rows in results.items():
        ordered = sorted(rows.items(), key=lambda kv: (kv[1]["amp_p90"], kv[1]["cpu_s"]))
        parts.append(f"### {stream}\n\n" + markdown_table(
            ["maintenance", "scan files vs compacted: median", "p90", "runs", "partitions folded", "modelled CPU s"],
            [[name, f"{r['amp_median']:.2f}", f"{r['amp_p90']:.2f}", r["runs"], r["folds"], f"{r['cpu_s']:.1f}"]
             for name, r in ordered]))
    return "\n\n".join(parts) + "\n"


def plot(results: dict[str, dict[str, dict[str, Any]]], out_name: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(6 * len(results), 5), sharey=True)
    for ax, (stream, rows) in zip(axes, results.items(), strict=False):
        for prefix, style, label in (("tuned", "o-", "tuned cron"), ("threshold", "*-", "threshold trigger"),
                                     ("worst-first", "s", "trigger folding its worst partitions only"),
                                     ("settled", "^", "trigger folding partitions dirty for a while only")):
            mine = sorted((r["amp_p90"], r["cpu_s"], n) for n, r in rows.items() if n.startswith(prefix))
            ax.plot([m[0] for m in mine], [m[1] for m in mine], style, label=label,
                    markersize=9 if prefix == "threshold" else 6,
                    fillstyle="full" if prefix in ("tuned", "threshold") else "none")
            for amp, cpu, name in mine:
                ax.annotate(name.split(" ", 1)[1] if " " in name else name, (amp, cpu),
                            textcoords="offset points", xytext=(4, 4), fontsize=7)
        ax.set_title(stream, fontsize=10)
        ax.set_xlabel("files a full scan opens vs a compacted copy, p90 over the intervals")
        ax.legend(fontsize=8)
    axes[0].set_ylabel("modelled compaction CPU s")
    fig.suptitle("Compute against flatness: crons and the threshold trigger on the same streams (file-count model)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(results_path(out_name, ".png"), dpi=90)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", help="a saved compaction run to compare the model with, e.g. compaction_steady_warm")
    parser.add_argument("--name", default="compaction_model", help="output name under benchmarks/results/")
    args = parser.parse_args()
    if args.check:
        matched, compared, mismatches = check(args.check)
        print(f"{args.check}: the model's data and delete files equal the real tables' at {matched} of {compared} "
              f"points (crons and the uncompacted table)")
        print("\n".join(mismatches))
        return
    results = {}
    for stream, shape in STREAMS.items():
        snapshot, intervals = replay_stream(shape)
        results[stream] = {name: simulate(snapshot, intervals, policy) for name, policy in policies().items()}
        print(f"{stream}: {len(intervals)} intervals, {sum(map(len, intervals)):,} net order changes", flush=True)
    text = report(results)
    print(text)
    results_path(args.name, ".md").write_text(text)
    results_path(args.name, ".json").write_text(json.dumps(results, indent=1))
    plot(results, args.name)


if __name__ == "__main__":
    main()
