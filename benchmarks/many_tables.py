"""lakeops over many tables (`python -m benchmarks many_tables [--quick]`): what grows with the number of
tables a platform runs, measured on generated tables (metadata only: each a real Iceberg table in the
embedded SQLite catalog with one one-row commit) at 100 and 1,000 tables, side by side in one run:

* the DAG file's parse time (a fresh interpreter imports dags/lakeops_dags.py with Airflow already imported),
  with the tables discovered, listed in the config, or listed with a `source` each (one ingest DAG per table);
* the health watch's poll when no table committed and when 1% did, against loading every table's metadata
  (what a poll costs when it reads each table);
* the table-health page's index as the plugin builds it (the config, the catalog's listing, every table's latest
  stored score, sorted and rendered), after a health sweep (the table_health DAG's task) has scored every table.

Results: benchmarks/results/many_tables.md (.json beside it) and the plot many_tables.png.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from benchmarks.common import PROJECT_ROOT, markdown_table, output_name, pyplot, save_figure, write_results

NAME = "many_tables"
NAMESPACE = "fleet"
PARSE_GOAL_S = 2.0
PARSE_HARNESS = r"""
import sys, time
import airflow.sdk  # Airflow itself is imported by the DAG processor before any DAG file
started = time.perf_counter()
namespace = {}
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), namespace)
elapsed = time.perf_counter() - started
dags = [v for v in namespace.values() if type(v).__name__ == "DAG"]
print("PARSE", elapsed, len(dags))
"""


@dataclass(frozen=True)
class Sizes:
    tables: tuple[int, ...] = (100, 1_000)
    repeats: int = 3
    ui_tables: tuple[int, ...] = (100, 1_000)


FULL = Sizes()
QUICK = Sizes(tables=(20, 100), repeats=2, ui_tables=(20, 100))


@dataclass
class Point:
    tables: int
    parse_s: dict[str, float] = field(default_factory=dict)
    """config shape -> median seconds of the DAG file's import"""
    dags: dict[str, int] = field(default_factory=dict)
    poll_idle_s: float = 0.0
    poll_idle_loads: int = 0
    poll_one_percent_s: float = 0.0
    poll_one_percent_loads: int = 0
    load_every_table_s: float = 0.0
    ui_index_s: float | None = None
    """median seconds to build and render the index"""
    ui_sweep_s: float | None = None
    """one health sweep scoring every table (what fills the store the index reads)"""


def _config(work: Path, tables: int, shape: str) -> Path:
    """A config file of `shape`: discover (a rule finds the tables), listed (each named), ingested (each with a source)."""
    # one catalog per size: the health history's engine is cached per database URL, so a reused path would outlive its file
    data: dict[str, Any] = {"catalog": {"name": "fleet", "namespace": NAMESPACE, "data_dir": str(work / f"data-{tables}")}}
    if shape == "discovered":
        data["discover"] = [{"namespaces": [NAMESPACE]}]
    else:
        entry = {"source": "landing"} if shape == "ingested" else {}
        data["tables"] = {f"{NAMESPACE}.t{i:05d}": dict(entry) for i in range(tables)}
    path = work / f"lakeops-{shape}-{tables}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def parse_seconds(config: Path, repeats: int) -> tuple[float, int]:
    """Median import time of the DAG file in a fresh interpreter, and the DAGs it made."""
    times, dags = [], 0
    env = {**os.environ, "LAKEOPS_CONFIG": str(config)}
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", PARSE_HARNESS, str(PROJECT_ROOT / "dags" / "lakeops_dags.py")],
                             env=env, capture_output=True, text=True, check=True, cwd=PROJECT_ROOT)
        line = next(line for line in out.stdout.splitlines() if line.startswith("PARSE "))
        times.append(float(line.split()[1]))
        dags = int(line.split()[2])
    return statistics.median(times), dags


def create_tables(config_path: Path, count: int) -> list[Any]:
    import pyarrow as pa

    from lakeops.catalog import load_catalog
    from lakeops.config import load_config

    catalog = load_catalog(load_config(config_path).catalog)
    catalog.create_namespace_if_not_exists(NAMESPACE)
    schema = pa.schema([("id", pa.int64())])
    tables = []
    for i in range(count):
        table = catalog.create_table_if_not_exists(f"{NAMESPACE}.t{i:05d}", schema=schema)
        table.append(pa.table({"id": [i]}))
        tables.append(table)
        if (i + 1) % 250 == 0:
            print(f"  created {i + 1} of {count} tables", flush=True)
    return tables


def measure_watch(config_path: Path, tables: list[Any], repeats: int) -> dict[str, float]:
    """The health watch over every discovered table: poll time and tables loaded, idle and after 1% committed."""
    import pyarrow as pa

    from lakeops.catalog import load_catalog
    from lakeops.config import load_config
    from lakeops.health.watch import HealthWatch

    watch = HealthWatch(None, config_path=str(config_path), record=False)
    watch.poll()  # the first poll loads and evaluates every table
    idle, idle_loads, busy, busy_loads = [], [], [], []
    changed = max(1, len(tables) // 100)
    for r in range(repeats):
        before = watch.loads
        started = time.perf_counter()
        watch.poll()
        idle.append(time.perf_counter() - started)
        idle_loads.append(watch.loads - before)
        for table in tables[r * changed:(r + 1) * changed]:
            table.append(pa.table({"id": [-1]}))
        before = watch.loads
        started = time.perf_counter()
        watch.poll()
        busy.append(time.perf_counter() - started)
        busy_loads.append(watch.loads - before)
    catalog = load_catalog(load_config(config_path).catalog)
    started = time.perf_counter()
    for table in tables:
        catalog.load_table(".".join(table.name()))
    return {"idle_s": statistics.median(idle), "idle_loads": statistics.median(idle_loads),
            "busy_s": statistics.median(busy), "busy_loads": statistics.median(busy_loads),
            "load_every_table_s": time.perf_counter() - started}


def measure_ui_index(config_path: Path, repeats: int) -> tuple[float, float]:
    """(median seconds of the table-health index as the plugin builds it, seconds of the sweep that scored every
    table first). The index reads no table metadata: one listing per namespace and the latest stored rows."""
    from lakeops.catalog import load_catalog
    from lakeops.config import load_config
    from lakeops.health.sweep import sweep
    from lakeops.ui.index_view import sort_rows
    from lakeops.ui.render_index import render_index
    from lakeops.ui.table_page import build_index

    config = load_config(config_path)
    started = time.perf_counter()
    scored = sweep(config, load_catalog(config.catalog))
    sweep_s = time.perf_counter() - started
    assert not scored.failed, scored.failed
    times = []
    for _ in range(max(repeats, 3)):
        started = time.perf_counter()
        config = load_config(config_path)
        rows, listing = build_index(config, load_catalog(config.catalog))
        html = render_index(sort_rows(rows), "/lakeops/health/", "/lakeops/health/", int(time.time() * 1000))
        times.append(time.perf_counter() - started)
        assert len(rows) == len(scored.evaluated) and listing.error is None and html
    return statistics.median(times), sweep_s


def run(work: Path, sizes: Sizes) -> list[Point]:
    points = []
    for count in sizes.tables:
        point = Point(count)
        for shape in ("discovered", "listed", "ingested"):
            point.parse_s[shape], point.dags[shape] = parse_seconds(_config(work, count, shape), sizes.repeats)
            print(f"{count} tables, {shape}: DAG file parsed in {point.parse_s[shape]:.3f} s ({point.dags[shape]} DAGs)",
                  flush=True)
        config = _config(work, count, "discovered")
        tables = create_tables(config, count)
        watch = measure_watch(config, tables, sizes.repeats)
        point.poll_idle_s, point.poll_idle_loads = watch["idle_s"], int(watch["idle_loads"])
        point.poll_one_percent_s, point.poll_one_percent_loads = watch["busy_s"], int(watch["busy_loads"])
        point.load_every_table_s = watch["load_every_table_s"]
        print(f"{count} tables: watch poll {point.poll_idle_s:.3f} s idle ({point.poll_idle_loads} loads), "
              f"{point.poll_one_percent_s:.3f} s with 1% committed ({point.poll_one_percent_loads} loads); loading every "
              f"table takes {point.load_every_table_s:.2f} s", flush=True)
        if count in sizes.ui_tables:
            point.ui_index_s, point.ui_sweep_s = measure_ui_index(config, sizes.repeats)
            print(f"{count} tables: table-health index built in {point.ui_index_s * 1000:.0f} ms (after a sweep scoring "
                  f"every table in {point.ui_sweep_s:.1f} s)", flush=True)
        points.append(point)
        shutil.rmtree(work / f"data-{count}", ignore_errors=True)
    return points


def report(points: list[Point]) -> str:
    rows = [[f"{p.tables:,}", *(f"{p.parse_s[s]:.3f} s ({p.dags[s]} DAGs)" for s in ("discovered", "listed", "ingested")),
             f"{p.poll_idle_s:.3f} s / {p.poll_idle_loads}", f"{p.poll_one_percent_s:.3f} s / {p.poll_one_percent_loads}",
             f"{p.load_every_table_s:.2f} s", "-" if p.ui_index_s is None else f"{p.ui_index_s * 1000:.0f} ms",
             "-" if p.ui_sweep_s is None else f"{p.ui_sweep_s:.1f} s"] for p in points]
    largest = points[-1]
    verdict = "met" if max(largest.parse_s["discovered"], largest.parse_s["listed"]) < PARSE_GOAL_S else "missed"
    return "\n".join([
        f"# lakeops over many tables ({', '.join(f'{p.tables:,}' for p in points)} tables)", "",
        markdown_table(["tables", "parse: discovered", "parse: listed", "parse: listed with a source each",
                        "watch poll, none committed (s / loads)", "watch poll, 1% committed (s / loads)",
                        "loading every table", "table-health index", "health sweep scoring every table"], rows), "",
        f"Parse goal (under {PARSE_GOAL_S:g} s at {largest.tables:,} tables, discovered or listed): {verdict}. "
        "Medians; the watch figures are one poll of the health watch over every table of a SQLite catalog.", ""])


def plot(points: list[Point], name: str) -> Path:
    plt = pyplot()
    fig, (parse, poll) = plt.subplots(1, 2, figsize=(11, 4))
    counts = [p.tables for p in points]
    for shape in ("discovered", "listed", "ingested"):
        parse.plot(counts, [p.parse_s[shape] for p in points], marker="o", label=shape)
    parse.axhline(PARSE_GOAL_S, color="grey", linestyle="--", label="goal")
    parse.set(xscale="log", xlabel="tables", ylabel="DAG file parse (s)", title="parse time")
    parse.legend()
    poll.plot(counts, [p.poll_idle_s for p in points], marker="o", label="watch poll, none committed")
    poll.plot(counts, [p.poll_one_percent_s for p in points], marker="o", label="watch poll, 1% committed")
    poll.plot(counts, [p.load_every_table_s for p in points], marker="o", label="loading every table")
    poll.set(xscale="log", yscale="log", xlabel="tables", ylabel="seconds", title="health watch")
    poll.legend()
    fig.tight_layout()
    return save_figure(fig, name)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m benchmarks {NAME}", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="20 and 100 tables: checks that it runs, in a few minutes")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="lakeops-bench-many-"))
    try:
        points = run(work, QUICK if args.quick else FULL)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    name = output_name(NAME, args.quick)
    paths = write_results(name, report(points), [asdict(p) for p in points])
    paths.append(plot(points, name))
    print("written: " + ", ".join(str(p.relative_to(PROJECT_ROOT)) for p in paths))
    return 0
