"""Each trigger setting against the crons of the same runs, on both counts at once: flatness (the
p90 of the files a full scan opens against a compacted copy, after every interval) and compaction
compute (with the trigger's health checks). A variant beats another when it is at least as flat
and spends less; when each wins on one count, neither beats the other. Runs nothing; reads the
compaction benchmark's saved .json files (benchmarks/compaction.py), those measured at every
interval (older runs have no file counts and are refused).

Why this and not an interpolated cron: compute falls ever more slowly as a cron's period grows
and flatness goes, so a straight line between two crons lies above the curve, and a trigger
compared with that line would be flattered.

    python -m benchmarks.compaction_pareto compaction_busy_quiet_each compaction_variable_each
"""

from __future__ import annotations

import argparse
from typing import Any

from benchmarks.compaction_frontier import load_runs, run_label
from benchmarks.compaction_report import summary
from benchmarks.results import markdown_table, results_path

CRONS = ("fixed", "tuned")
"""The scenario kinds that run on a schedule."""


def variants(result: dict[str, Any], run: str) -> list[dict[str, Any]]:
    """The run's compacted variants: kind, scan-file p90 and median, CPU s with the checks."""
    figures = summary(result)
    if not all("file_amp_p90" in f for f in figures.values()):
        raise ValueError(f"run {run} recorded no scan-file counts (measured before they were): re-run it with "
                         f"python -m benchmarks.compaction --name {run}")
    found = []
    for s in result["scenarios"]:
        if s["kind"] != "none":
            f = figures[s["name"]]
            found.append({"variant": s["name"], "kind": s["kind"], "p90": round(f["file_amp_p90"], 2),
                          "median": round(f["file_amp_median"], 2),
                          "cpu_s": round(f["compaction_cpu_s"] + f["evaluation_cpu_s"], 1)})
    return found


def beats(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """a is at least as flat as b (scan-file p90, to two decimals) and spends less."""
    return a["p90"] <= b["p90"] and a["cpu_s"] < b["cpu_s"]


def pairs(runs: dict[str, dict[str, Any]], variants_of=None) -> list[dict[str, Any]]:
    """Per run and trigger setting: the crons it beats, the crons that beat it, and the crons
    that trade one count for the other (variants from `variants_of`, by default `variants`)."""
    out = []
    for run, result in runs.items():
        found = (variants_of or variants)(result, run)
        crons = [v for v in found if v["kind"] in CRONS]
        for trigger in (v for v in found if v["kind"] == "threshold"):
            out.append({"run": run, "stream": run_label(result), **trigger,
                        "beats": [c["variant"] for c in crons if beats(trigger, c)],
                        "beaten_by": [c["variant"] for c in crons if beats(c, trigger)],
                        "trades": [c["variant"] for c in crons if not beats(trigger, c) and not beats(c, trigger)],
                        "crons": crons})
    return out


def _named(names: list[str], crons: list[dict[str, Any]]) -> str:
    by_name = {c["variant"]: c for c in crons}
    return ", ".join(f"{n} ({by_name[n]['p90']:.2f}, {by_name[n]['cpu_s']:.1f})" for n in names) or "none"


def report(found: list[dict[str, Any]]) -> str:
    rows = [[f"{p['run']} ({p['stream']})", p["variant"], f"{p['p90']:.2f}", f"{p['cpu_s']:.1f}",
             _named(p["beats"], p["crons"]), _named(p["beaten_by"], p["crons"]), _named(p["trades"], p["crons"])]
            for p in found]
    return ("Each trigger setting against the crons of its run: flatness is the p90 over every interval of the "
            "files a full scan opens against a compacted copy, compute the compaction CPU s (the trigger's with its "
            "health checks); a variant beats another when it is at least as flat and spends less. Crons as "
            "(p90, CPU s).\n\n"
            + markdown_table(["run", "trigger", "scan-file p90", "CPU s", "beats", "beaten by",
                              "trades flatness for compute with"], rows) + "\n")


def plot(runs: dict[str, dict[str, Any]], out_name: str, variants_of=None,
         ylabel: str = "compaction CPU s over the run (trigger: with its health checks)") -> None:
    """Each run's crons and trigger settings on both counts; variants_of as in pairs()."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 6))
    for run, result in runs.items():
        found = (variants_of or variants)(result, run)
        color = ax.plot([], [])[0].get_color()
        crons = sorted((v for v in found if v["kind"] in CRONS), key=lambda v: v["p90"])
        ax.plot([c["p90"] for c in crons], [c["cpu_s"] for c in crons], "o-", color=color, label=f"{run}: {run_label(result)}")
        for v in found:
            if v["kind"] == "threshold":
                ax.plot(v["p90"], v["cpu_s"], "*", markersize=14, color=color)
            ax.annotate(v["variant"], (v["p90"], v["cpu_s"]), textcoords="offset points", xytext=(5, 4), fontsize=7,
                        color=color)
    ax.set_xlabel("files a full scan opens vs a compacted copy, p90 over every interval (less is flatter)")
    ax.set_ylabel(ylabel)
    ax.set_title("Crons (circles, joined) and trigger settings (stars) on both counts; below and left of a cron beats it",
                 fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(results_path(out_name, ".png"), dpi=90)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="results names under benchmarks/results/, measured at every interval")
    parser.add_argument("--name", default="compaction_pareto", help="output name under benchmarks/results/")
    args = parser.parse_args()
    runs = load_runs(args.runs)
    try:
        found = pairs(runs)
    except ValueError as e:
        raise SystemExit(str(e)) from None
    text = report(found)
    print(text)
    results_path(args.name, ".md").write_text(text)
    plot(runs, args.name)


if __name__ == "__main__":
    main()
