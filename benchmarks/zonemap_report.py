"""The zonemap benchmark's results: Markdown tables and matplotlib plots (log scale)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.results import markdown_table, results_path
from benchmarks.zonemap_ingest import IngestSummary
from benchmarks.zonemap_reads import METHODS, IndexMemory, Measure

MIB = 1024 * 1024


def ingest_table(summaries: list[IngestSummary]) -> str:
    headers = ["variant", "writers", "batches", "rows", "rows/s (median)", "Iceberg commits", "lock wait / batch",
               "lock held / batch", "write impact vs no zonemap"]
    rows = [[s.variant, s.writers, s.batches, f"{s.rows:,}", f"{s.rows_per_s:,.0f}", s.commits,
             f"{s.lock_wait_per_batch_s:.2f} s" if "master" in s.variant else "-",
             f"{s.lock_held_per_batch_s:.2f} s" if "master" in s.variant else "-",
             "baseline" if i == 0 else f"{s.impact_pct:+.1f} %"] for i, s in enumerate(summaries)]
    return markdown_table(headers, rows)


def reads_table(measures: list[Measure]) -> str:
    headers = ["query", "range", "method", "planning", "files read", "MiB read", "wall time", "rows"]
    rows = [[m.query, m.range, m.method, f"{m.planning_s * 1000:,.0f} ms" if m.method != "oracle" else "-",
             f"{m.files:,} of {m.live_files:,}", f"{m.bytes / MIB:,.2f}", f"{m.wall_s * 1000:,.0f} ms", f"{m.rows:,}"]
            for m in measures]
    return markdown_table(headers, rows)


def memory_line(memory: IndexMemory) -> str:
    return (f"Hot index in memory (lakeops.zonemap.hot, Arrow sizes): {memory.hot_entries:,} entries from "
            f"{memory.hot_files:,} micro zonemap files, {memory.hot_bytes / MIB:,.2f} MiB of a {memory.max_bytes / MIB:,.0f} MiB "
            f"bound ({memory.hot_bytes // max(memory.hot_entries, 1):,} bytes an entry, Bloom filter included). "
            f"Cold: the daily master on disk, {memory.master_entries:,} entries in {memory.master_bytes / MIB:,.2f} MiB, "
            "never held in memory.")


def plot_reads(measures: list[Measure], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    labels = list(dict.fromkeys(f"{m.query}\n({m.range})" for m in measures))
    fig, axes = plt.subplots(1, 3, figsize=(18, 6))
    width = 0.8 / len(METHODS)
    x = np.arange(len(labels))
    for ax, (title, value) in zip(axes, (("files read", lambda m: m.files), ("MiB read", lambda m: m.bytes / MIB),
                                         ("wall time (ms, median)", lambda m: m.wall_s * 1000)), strict=False):
        for i, method in enumerate(METHODS):
            values = [max(value(m), 1e-3) for m in measures if m.method == method]
            ax.bar(x + (i - (len(METHODS) - 1) / 2) * width, values, width, label=method)
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xticks(x, labels, rotation=35, ha="right", fontsize=8)
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[0].legend()
    fig.suptitle("Selective reads on the small-file table: Spark + Iceberg pruning vs zonemap-pruned read vs oracle (log scale)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_ingest(summaries: list[IngestSummary], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 5))
    names = [s.variant.replace(" in every commit", "\nin every commit") for s in summaries]
    bars = ax.bar(names, [s.rows_per_s for s in summaries], color=["grey", "tab:green", "tab:red", "darkred"][:len(summaries)])
    for bar, s, i in zip(bars, summaries, range(len(summaries)), strict=False):
        ax.annotate("baseline" if i == 0 else f"{s.impact_pct:+.1f} %", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    ha="center", va="bottom")
    ax.set_ylabel("rows/s (median of rounds)")
    ax.set_title(f"Ingest throughput, {summaries[0].writers} concurrent writers, same landed events")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_results(name: str, text: str, summaries: list[IngestSummary], measures: list[Measure]) -> list[Path]:
    md = results_path(name, ".md")
    md.write_text(text)
    return [md, plot_ingest(summaries, results_path(name, "_ingest.png")), plot_reads(measures, results_path(name, "_reads.png"))]
