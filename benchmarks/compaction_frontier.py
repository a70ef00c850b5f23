"""Compaction compute against full-scan time: one point per maintenance variant and run, from the
compaction benchmark's saved results (benchmarks/compaction.py), so the variants that hold the
query can be compared by what they spend. Runs nothing; reads the .json files.

    python -m benchmarks.compaction_frontier     # the runs in DEFAULT_RUNS
    python -m benchmarks.compaction_frontier compaction compaction_variable
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from benchmarks.compaction_report import summary
from benchmarks.compaction_workload import PARTITION_BY
from benchmarks.results import RESULTS_DIR, markdown_table, results_path

DEFAULT_RUNS = ("compaction_steady_warm", "compaction_busy_quiet", "compaction_variable", "compaction_steady_amp20")
"""Steady, busy and quiet (both with the warm-up), varying, and steady with the trigger at 2.0."""
BAND = 1.15
"""The benchmark's goal: the full scan within 15% of a freshly compacted table."""


def run_label(result: dict[str, Any]) -> str:
    """The stream ('steady', or its rate multipliers and how long each lasts), the partitioning
    when it is not the shipped one, the trigger when the run set one, and whether the run warmed
    the JVM up first."""
    args = result["args"]
    profile = args.get("rate_profile")
    parts = [f"rates x{'/'.join(f'{r:g}' for r in profile)} per {args.get('rate_block_minutes', 60)} min"
             if profile else "steady"]
    if args.get("partition_by") not in (None, PARTITION_BY):
        parts.append(f"by {args['partition_by']}")
    trigger = (result.get("policy") or {}).get("max_file_amplification")
    if trigger is not None:
        parts.append(f"max_file_amplification {trigger:g}")
    if result.get("warm_up"):
        parts.append("warm-up")
    return ", ".join(parts)


def frontier(runs: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Per run and compacted variant: compaction CPU s (with the threshold checks) and the full
    scan against the fresh copy (CPU, median and p90); cheapest first within a run."""
    points = []
    for run, result in runs.items():
        figures = summary(result)
        kinds = {s["name"]: s["kind"] for s in result["scenarios"]}
        for name, f in figures.items():
            if kinds[name] == "none":
                continue
            points.append({"run": run, "stream": run_label(result), "variant": name, "kind": kinds[name],
                           "cpu_s": f["compaction_cpu_s"] + f["evaluation_cpu_s"],
                           "full_median": f["full_cpu_s_median"], "full_p90": f["full_cpu_s_p90"]})
    return sorted(points, key=lambda p: (list(runs).index(p["run"]), p["cpu_s"]))


def report(points: list[dict[str, Any]]) -> str:
    rows = [[f"{p['run']} ({p['stream']})", p["variant"], f"{p['cpu_s']:.1f}", f"{p['full_median']:.2f} ({p['full_p90']:.2f})"]
            for p in points]
    return ("Compaction CPU s (threshold: with its health checks) against the full scan's CPU time over a "
            "fresh copy's, median (p90) over the run's points; cheapest first within a run.\n\n"
            + markdown_table(["run", "maintenance", "compaction CPU s", "full scan vs fresh: median (p90)"], rows)
            + "\n")


def plot(points: list[dict[str, Any]], out_name: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 6))
    markers = {"fixed": "s", "tuned": "o", "threshold": "*"}
    for run in dict.fromkeys(p["run"] for p in points):
        mine = [p for p in points if p["run"] == run]
        color = ax.plot([], [])[0].get_color()
        for p in mine:
            ax.errorbar(p["cpu_s"], p["full_median"], yerr=[[0], [max(0.0, p["full_p90"] - p["full_median"])]],
                        marker=markers[p["kind"]], markersize=11 if p["kind"] == "threshold" else 7, color=color,
                        capsize=3, linestyle="none")
            ax.annotate(p["variant"], (p["cpu_s"], p["full_median"]), textcoords="offset points", xytext=(6, -10),
                        fontsize=8, color=color)
        ax.plot([], [], marker="o", linestyle="none", color=color, label=f"{run}: {mine[0]['stream']}")
    ax.axhline(BAND, color="grey", linestyle="--", label=f"goal: {BAND:.2f} x a fresh copy")
    ax.set_xlabel("compaction CPU s over the run (threshold: with its health checks)")
    ax.set_ylabel("full scan vs a fresh copy, CPU: median (bar up to p90)")
    ax.set_title("What each maintenance variant spends for the full scan it keeps\n"
                 "(square: Iceberg-defaults cron, circle: tuned cron, star: threshold-triggered)", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(results_path(out_name, ".png"), dpi=90)


def load_runs(names: list[str]) -> dict[str, dict[str, Any]]:
    """Saved compaction runs by name; a missing one stops with the command that makes it."""
    runs = {}
    for name in names:
        path = RESULTS_DIR / f"{name}.json"
        if not path.exists():
            raise SystemExit(f"{path} does not exist: run the compaction benchmark with --name {name} first")
        runs[name] = json.loads(path.read_text())
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", default=list(DEFAULT_RUNS), help="results names under benchmarks/results/")
    parser.add_argument("--name", default="compaction_frontier", help="output name under benchmarks/results/")
    args = parser.parse_args()
    points = frontier(load_runs(args.runs))
    text = report(points)
    print(text)
    results_path(args.name, ".md").write_text(text)
    plot(points, args.name)


if __name__ == "__main__":
    main()
