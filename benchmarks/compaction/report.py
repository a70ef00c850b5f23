"""The compaction stream's report: its results table and plot."""

from __future__ import annotations

import statistics
from typing import Any

from benchmarks.common import markdown_table, pyplot, save_figure

QUERIES = ("full", "recent")


def _ratios(series: list[dict[str, Any]], query: str, name: str, measure: str) -> list[float]:
    return [p["query"][query][name][measure] / p["query"][query]["fresh"][measure] for p in series]


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def summary(result: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Per scenario: query time against the fresh copy (median and 90th percentile of the ratio
    over every measurement), files and read amplification (mean over measurements, and at the
    end), compaction compute."""
    series = result["series"]
    out: dict[str, dict[str, float]] = {}
    for scenario in result["scenarios"]:
        name = scenario["name"]
        health = [p["health"][name] for p in series]
        row: dict[str, float] = {}
        for query in QUERIES:
            for measure in ("cpu_s", "wall_s"):
                ratios = _ratios(series, query, name, measure)
                row[f"{query}_{measure}_median"] = statistics.median(ratios)
                row[f"{query}_{measure}_p90"] = p90(ratios)
        row["files_mean"] = statistics.mean(h["data_files"] + h["delete_files"] for h in health)
        row["read_amp_files_mean"] = statistics.mean(h["read_amp_files"] for h in health)
        row["read_amp_bytes_mean"] = statistics.mean(h["read_amp_bytes"] for h in health)
        layout = [h["scan_files"] / h["compacted_files"] for h in health if h["compacted_files"]]
        row["file_amp_median"], row["file_amp_p90"] = statistics.median(layout), p90(layout)
        cost, evaluation = result["compaction"][name], result["evaluation"][name]
        row.update(compaction_calls=cost["calls"], compaction_wall_s=cost["wall_s"], compaction_cpu_s=cost["cpu_s"],
                   evaluation_cpu_s=evaluation["cpu_s"], ingest_cpu_s=result["ingest"][name]["cpu_s"])
        out[name] = row
    return out


def report(result: dict[str, Any]) -> str:
    args, series = result["args"], result["series"]
    rows = []
    figures = summary(result)
    fixed = [s["name"] for s in result["scenarios"] if s["kind"] in ("fixed", "tuned")]
    for scenario in result["scenarios"]:
        name = scenario["name"]
        f, end = figures[name], series[-1]["health"][name]
        vs_fixed = " / ".join(f"{f['compaction_cpu_s'] / figures[x]['compaction_cpu_s']:.2f}" for x in fixed
                              if figures[x]["compaction_cpu_s"])
        rows.append([name, f"{end['data_files']:,} + {end['delete_files']:,}", f"{f['files_mean']:.0f}",
                     f"{f['read_amp_files_mean']:.2f} / {f['read_amp_bytes_mean']:.2f}",
                     f"{f['file_amp_median']:.2f} ({f['file_amp_p90']:.2f})",
                     *[f"{f[f'{q}_{m}_median']:.2f} ({f[f'{q}_{m}_p90']:.2f})" for q in QUERIES for m in ("cpu_s", "wall_s")],
                     str(f["compaction_calls"]), f"{f['compaction_wall_s']:.1f}", f"{f['compaction_cpu_s']:.1f}",
                     vs_fixed if scenario["kind"] != "none" else "", f"{f['evaluation_cpu_s']:.1f}", f"{f['ingest_cpu_s']:.0f}"])
    table = markdown_table(
        ["maintenance", "data + delete files (end)", "files (mean)", "read amp files / bytes (mean)",
         "files a full scan opens vs a compacted copy: median (p90)",
         "full scan vs fresh, CPU: median (p90)", "full scan vs fresh, wall", "last 24 h vs fresh, CPU",
         "last 24 h vs fresh, wall", "compaction runs",
         "compaction wall s", "compaction CPU s", f"CPU vs {' / '.join(fixed)}", "health checks CPU s",
         "ingest CPU s"], rows)
    load = result["load_average"]
    fresh = {q: {m: statistics.median(p["query"][q]["fresh"][m] for p in series) for m in ("cpu_s", "wall_s")}
             for q in QUERIES}
    return (
        f"{args['hours']:g} simulated hours; `orders` partitioned by {args['partition_by']}: an initial snapshot of "
        f"{result['snapshot_orders']:,} orders over {args['history_days']} days, then {_rate(args)} "
        f"({result['changes']}), order updates and deletes skewed to recent days (Zipf exponent "
        f"{args['skew']} on the age in days), applied every 5 minutes by the CDC ingest job. {result['rows']:,} live "
        f"orders at the end; every table holds them all: {'yes' if result['keys_match'] else 'NO'}; identical rows: "
        f"{'yes' if result['same_rows'] else 'NO'}. Measured every {args['measure_every']} simulated minutes "
        f"({len(series)} points), query times are medians of {args['repeats']} runs taken round-robin; a fresh copy "
        f"answers the full scan in {fresh['full']['wall_s']:.3f} s ({fresh['full']['cpu_s']:.3f} CPU s) and the last 24 "
        f"hours in {fresh['recent']['wall_s']:.3f} s ({fresh['recent']['cpu_s']:.3f} CPU s), medians. "
        f"{_warm_up(result['warm_up'])}Run took {result['duration_s'] / 60:.0f} min, load average "
        f"{load['min']:.1f} to {load['max']:.1f} (median {load['median']:.1f}) on 2 cores.\n\n{table}\n")


def _warm_up(warm_up: dict[str, Any]) -> str:
    return (f"Every kind of compaction ran once on a scratch copy first, unmeasured "
            f"({'; '.join(warm_up['ran'])}; {warm_up['cpu_s']:.1f} CPU s). ")


def _rate(args: dict[str, Any]) -> str:
    profile = args.get("rate_profile") or []
    if not profile:
        return f"{args['changes_per_minute']} CDC changes a minute"
    rates = ", ".join(f"{round(args['changes_per_minute'] * m)}" for m in profile)
    return (f"a CDC stream whose rate changes every {args['rate_block_minutes']} minutes, cycling through {rates} "
            f"changes a minute ({args['changes_per_minute']} x {', '.join(f'{m:g}' for m in profile)})")


def plot(result: dict[str, Any], out_name: str) -> None:
    series = result["series"]
    minutes = [p["minute"] for p in series]
    fig, axes = pyplot().subplots(2, 3, figsize=(16, 8))
    (amp, files, cpu), (full, recent, wall) = axes
    for scenario in result["scenarios"]:
        name = scenario["name"]
        amp.plot(minutes, [p["health"][name]["read_amp_files"] for p in series], label=name)
        files.plot(minutes, [p["health"][name]["data_files"] + p["health"][name]["delete_files"] for p in series], label=name)
        full.plot(minutes, [p["query"]["full"][name]["cpu_s"] for p in series], label=name)
        recent.plot(minutes, [p["query"]["recent"][name]["cpu_s"] for p in series], label=name)
        cpu.plot(minutes, [p["compaction"][name]["cpu_s"] for p in series], label=name)
        wall.plot(minutes, [p["compaction"][name]["wall_s"] for p in series], label=name)
    for ax in (full, recent):
        key = "full" if ax is full else "recent"
        ax.plot(minutes, [p["query"][key]["fresh"]["cpu_s"] for p in series], label="fresh copy", linestyle="--", color="grey")
    titles = ["read amplification (files a scan opens per data file)", "data + delete files",
              "compaction CPU s, cumulative (Spark JVM + Python)", "full-scan query (CPU s, median)",
              "last-24-hours query (CPU s, median)", "compaction wall s, cumulative"]
    for ax, title in zip([amp, files, cpu, full, recent, wall], titles, strict=False):
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("simulated minutes")
        ax.legend(fontsize=8)
    save_figure(fig, out_name, dpi=90)
