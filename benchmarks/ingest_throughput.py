"""Sustained streaming ingest throughput at a target rate (`python -m benchmarks ingest_throughput [--quick]`).

Each scenario below runs the supervised streaming job (spark_jobs/stream_events.py, the long-running
query, local[2]) on the shipped `events` table in a fresh embedded catalog: micro zonemaps written
after every commit, quarantine on (the generator's bad lines), exactly-once commits, in each commit
mode (staged: each micro-batch written in one pass; direct: cached, counted, two Spark writes). Input
comes from the paced generator (lakeops.generator.paced):

* backlog: the scenario's whole input is landed before the job starts; measured from the first
  commit to the last, so the job's start-up is kept out;
* live: files land at the target rate while the query runs, after a warm-up file is readable.

Per scenario: committed rows/s (overall and over time, in WINDOW_S windows), freshness (file in
place -> a fresh metadata read shows all rows up to it), CPU seconds of the job's whole process tree
per million rows, micro-batches, data files and Iceberg commits per minute, and the time split from
the job's own per-phase figures (lakeops.phases). Load average and nproc are recorded: the machine
is shared.

Then the CDC part (benchmarks.cdc_throughput: changes/s on the merge-on-read `orders` table, delete files per minute),
batch mode (one ingest_events spark-submit per interval: fixed cost per run, rows/s of a 5-minute interval) and the
zonemap write-impact table (benchmarks.write_impact, its own results).

Results: benchmarks/results/ingest_throughput.md, .json and .png.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.cdc_throughput import CDC, CDC_QUICK, CdcMeasured, cdc_report, plot_cdc, run_cdc
from benchmarks.common import (
    job_env,
    markdown_table,
    output_name,
    percentile,
    pyplot,
    save_figure,
    stop_job,
    streamed_config,
    write_results,
)


@dataclass(frozen=True)
class Scenario:
    name: str
    backlog: bool
    rows_per_second: int
    seconds: int
    """Seconds of input at rows_per_second (live: how long files land)."""
    rows_per_file: int
    trigger_seconds: int
    max_files_per_trigger: int
    commit_mode: str = "staged"
    """ingest.commit_mode of the table: staged (each micro-batch written in one pass) or direct (cached, two writes)."""

    @property
    def label(self) -> str:
        return f"{self.name}, {self.commit_mode}"


TARGET = 43_000
COMMIT_MODES = ("staged", "direct")
FULL = tuple(Scenario(name, backlog, TARGET, 600, TARGET, 10, 20, mode)
             for mode in COMMIT_MODES for name, backlog in (("backlog", True), ("live", False)))
QUICK = tuple(Scenario(name, backlog, TARGET, 20, TARGET // 2, 10, 20, mode)
              for mode in COMMIT_MODES for name, backlog in (("backlog", True), ("live", False)))


@dataclass(frozen=True)
class BatchScenario:
    """Batch mode (one spark-submit of ingest_events per data interval): a run over one tiny file gives the fixed
    cost per run, a run over `seconds` of input at rows_per_second the rows/s; a 5-minute interval is derived."""

    rows_per_second: int
    seconds: int
    rows_per_file: int


BATCH = BatchScenario(TARGET, 60, TARGET)
BATCH_QUICK = BatchScenario(TARGET, 5, TARGET)
BATCH_INTERVAL_S = 300
FIXED_ROUNDS = 3
NAME = "ingest_throughput"
PARTS = ("streaming", "cdc", "batch", "write_impact")
FRESHNESS_GOAL_S = 60.0
WINDOW_S = 30.0
POLL_S = 1.0
STARTUP_LIMIT_S = 600
DRAIN_LIMIT_S = 1800
DRIVER_MEMORY = "3g"
PHASE_LINE = re.compile(r"micro-batch \d+ committed: (\d+) files, (\d+) rows, (\d+) quarantined.* phases (.+)$", re.M)


@dataclass
class Measured:
    scenario: Scenario
    landed_rows: int = 0
    landed_good: int = 0
    generator_rows_per_s: float = 0.0
    generator_behind_s: float = 0.0
    committed_rows: int = 0
    seconds: float = 0.0
    """From the first commit (backlog) or the first live file (live) to the last row committed."""
    rows_per_s: float = 0.0
    steady_rows_per_s: float = 0.0
    """Committed rows/s from the first commit of the measured window to the last: the backlog's rows_per_s; live,
    the rate while files land, which cannot exceed the landed rate: a live run meets the goal by keeping pace."""
    cpu_s: float = 0.0
    cpu_s_per_million: float = 0.0
    micro_batches: int = 0
    data_files: int = 0
    commits: int = 0
    phases: dict[str, float] = field(default_factory=dict)
    freshness: list[float] = field(default_factory=list)
    timeline: list[tuple[float, int]] = field(default_factory=list)
    """(seconds since the measured start, committed rows) at each new snapshot."""
    drained: bool = True
    load: list[float] = field(default_factory=list)


def bench_config(work: Path, s: Scenario):
    return streamed_config(work, "events", s.trigger_seconds, s.max_files_per_trigger, commit_mode=s.commit_mode)


class Progress:
    """Fresh metadata reads of `events`: committed rows (total-records) whenever the snapshot changes."""

    def __init__(self, config) -> None:
        self.config = config
        self.snapshot: int | None = None
        self.seen: list[tuple[float, int]] = []

    def poll(self) -> int:
        from lakeops.catalog import load_catalog

        try:
            table = load_catalog(self.config.catalog).load_table(self.config.identifier("events"))
        except Exception:  # the job has not created the table yet
            return 0
        current = table.current_snapshot()
        if current is None:
            return 0
        rows = int((current.summary or {}).get("total-records", 0))
        if current.snapshot_id != self.snapshot:
            self.snapshot = current.snapshot_id
            self.seen.append((time.time(), rows))
        return rows


def tree_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process and its live descendants (the driver JVM, Python workers)."""
    import psutil

    total = 0.0
    try:
        root = psutil.Process(pid)
        for p in [root, *root.children(recursive=True)]:
            try:
                t = p.cpu_times()
                total += t.user + t.system + t.children_user + t.children_system
            except psutil.NoSuchProcess:
                pass
    except psutil.NoSuchProcess:
        pass
    return total




def _commits(config, since_ms: int) -> tuple[int, int]:
    """(Iceberg commits to events and its quarantine after since_ms, data files the batches added to events).
    A commit is a new metadata file (a publish that fast-forwards the branch adds no snapshot); a batch's files
    are counted once, on the snapshot that carries its batch id (a cherry-pick's copy names the published wap.id)."""
    from lakeops.catalog import load_catalog

    catalog = load_catalog(config.catalog)
    commits = files = 0
    for name in ("events", config.table("events").quarantine_name):
        table = catalog.load_table(config.identifier(name))
        commits += sum(e.timestamp_ms >= since_ms for e in table.metadata.metadata_log) + 1
        for snap in table.snapshots():
            summary = snap.summary or {}
            if (name == "events" and snap.timestamp_ms >= since_ms and summary.get("lakeops.batch-id")
                    and not summary.get("published-wap-id")):
                files += int(summary.get("added-data-files", 0))
    return commits, files


def _wait_rows(progress: Progress, rows: int, limit_s: float, job: subprocess.Popen, log_path: Path) -> bool:
    deadline = time.monotonic() + limit_s
    while progress.poll() < rows:
        if job.poll() is not None:
            raise RuntimeError(f"the streaming job exited ({job.returncode}):\n{log_path.read_text()[-3000:]}")
        if time.monotonic() > deadline:
            return False
        time.sleep(POLL_S)
    return True


def run_scenario(s: Scenario) -> Measured:
    from lakeops.generator.paced import EventPool, land_paced, pace
    from lakeops.runtime import spark_submit_command

    work = Path(tempfile.mkdtemp(prefix="lakeops-bench-throughput-"))
    m = Measured(s)
    pool = EventPool()
    try:
        config_path, config = bench_config(work, s)
        progress = Progress(config)
        schedule = pace(s.rows_per_second, s.rows_per_file, s.seconds, backlog=s.backlog)
        if s.backlog:
            run = land_paced(config.landing_root, schedule, "b", pool)
            m.landed_rows, m.landed_good = run.rows, run.rows - run.bad
            m.generator_rows_per_s = run.rows_per_second
            print(f"  {s.label}: landed {run.rows:,} rows in {run.files} files ({run.seconds:.0f} s)", flush=True)
        else:
            land_paced(config.landing_root, pace(100, 100, 1), "warmup", pool)
        command = spark_submit_command("stream_events", ["--table", "events", "--mode", "supervised", "--run-seconds",
                                                         "21600", "--config", str(config_path)], work)
        command[1:1] = ["--driver-memory", DRIVER_MEMORY]
        log_path = work / "stream.log"
        with open(log_path, "w") as out:
            job = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env=job_env())
        try:
            if s.backlog:
                _wait_rows(progress, 1, STARTUP_LIMIT_S, job, log_path)
                began, cpu0, since = progress.seen[0][0], tree_cpu_s(job.pid), int(progress.seen[0][0] * 1000)
                base = progress.seen[0][1]
                m.drained = _wait_rows(progress, m.landed_good, DRAIN_LIMIT_S, job, log_path)
            else:
                warm = pool_good(pool, 100)
                if not _wait_rows(progress, warm, STARTUP_LIMIT_S, job, log_path):
                    raise RuntimeError(f"warm-up file not readable after {STARTUP_LIMIT_S} s")
                base, since = progress.poll(), int(time.time() * 1000)
                cpu0, began = tree_cpu_s(job.pid), time.time()
                stop = threading.Event()
                box: dict[str, object] = {}
                lander = threading.Thread(target=lambda: box.update(
                    run=land_paced(config.landing_root, schedule, "l", pool, stop=stop.is_set)), daemon=True)
                lander.start()
                while lander.is_alive():
                    progress.poll()
                    m.load.append(os.getloadavg()[0])
                    time.sleep(POLL_S)
                run = box["run"]  # type: ignore[assignment]
                m.landed_rows, m.landed_good = run.rows, run.rows - run.bad  # type: ignore[attr-defined]
                m.generator_rows_per_s, m.generator_behind_s = run.rows_per_second, run.max_behind_s  # type: ignore[attr-defined]
                m.drained = _wait_rows(progress, base + m.landed_good, DRAIN_LIMIT_S, job, log_path)
                m.freshness = _freshness(run, schedule, pool, base, progress.seen)  # type: ignore[arg-type]
            m.cpu_s = tree_cpu_s(job.pid) - cpu0
            last = progress.seen[-1]
            m.seconds = last[0] - began
            m.committed_rows = last[1] - base
            m.timeline = [(round(t - began, 1), rows - base) for t, rows in progress.seen if t >= began]
            m.commits, m.data_files = _commits(config, since)
        finally:
            stop_job(job)
        m.rows_per_s = m.committed_rows / m.seconds if m.seconds else 0.0
        m.steady_rows_per_s = steady_rate(m.timeline)
        m.cpu_s_per_million = m.cpu_s / m.committed_rows * 1e6 if m.committed_rows else 0.0
        m.phases, m.micro_batches = _phases(log_path.read_text(), warm_up=not s.backlog)
        return m
    finally:
        shutil.rmtree(work, ignore_errors=True)


def steady_rate(timeline: list[tuple[float, int]]) -> float:
    """Rows/s between the first and the last (seconds, committed rows) point: the first commit's rows excluded."""
    if len(timeline) < 2 or timeline[-1][0] <= timeline[0][0]:
        return 0.0
    (t0, r0), (t1, r1) = timeline[0], timeline[-1]
    return (r1 - r0) / (t1 - t0)


def meets_goal(m: Measured) -> str:
    """Backlog: committed at TARGET rows/s or more. Live: files landed at TARGET (within 1%) and every one was
    readable within the freshness goal, so the job committed rows as fast as they landed, for the whole run."""
    if not m.drained:
        return "no (not drained)"
    if m.scenario.backlog:
        return "yes" if m.rows_per_s >= TARGET else "no"
    kept_pace = (m.generator_rows_per_s >= 0.99 * TARGET and bool(m.freshness)
                 and max(m.freshness) < FRESHNESS_GOAL_S)
    return "yes (kept pace)" if kept_pace else "no (fell behind)"


def pool_good(pool, rows: int) -> int:
    """Good rows among the first `rows` lines of a file from pool."""
    return sum(1 for i in range(rows) if pool.tails[i % len(pool.tails)] is not None)


def _freshness(run, schedule, pool, base: int, seen: list[tuple[float, int]]) -> list[float]:
    """Per landed file: time from in place to the first read whose committed rows cover it (files are read in
    landing order)."""
    out, good = [], base
    for f in schedule[:run.files]:
        good += pool_good(pool, f.rows)
        landed = run.landed_at[f"l-{f.index:06d}"]
        readable = next((t for t, rows in seen if rows >= good and t >= landed), None)
        if readable is not None:
            out.append(readable - landed)
    return out


def _phases(text: str, warm_up: bool) -> tuple[dict[str, float], int]:
    from lakeops.phases import add_phases, parse_phases

    total: dict[str, float] = {}
    batches = PHASE_LINE.findall(text)[1 if warm_up else 0:]
    for _files, _rows, _bad, phases in batches:
        total = add_phases(total, parse_phases(phases))
    return total, len(batches)


@dataclass
class BatchMeasured:
    scenario: BatchScenario
    first_s: float = 0.0
    """Wall time of the first run, which creates the table and its quarantine (once per table)."""
    fixed_s: float = 0.0
    """Wall time of a run over one file of 100 rows into the existing table, the driver mapping the class archive
    (lakeops.class_archive): spark-submit, JVM, session, metadata, commits. The median of the rounds."""
    fixed_cpu_s: float = 0.0
    fixed_phases: dict[str, float] = field(default_factory=dict)
    """The median tiny run's own time split: what is left of fixed_s is spark-submit, the JVM and the session."""
    fixed_without_archive_s: float = 0.0
    fixed_without_archive_cpu_s: float = 0.0
    """The same tiny runs, alternated with those, without the class archive."""
    rows: int = 0
    seconds: float = 0.0
    cpu_s: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)

    @property
    def marginal_rows_per_s(self) -> float:
        return self.rows / max(self.seconds - self.fixed_s, 1e-9)

    @property
    def interval_rows_per_s(self) -> float:
        """Rows/s of one run over BATCH_INTERVAL_S of input at the scenario's rate: fixed cost + rows at the marginal rate."""
        return self.interval_rate(self.fixed_s)

    def interval_rate(self, fixed_s: float) -> float:
        """interval_rows_per_s for a fixed cost of fixed_s."""
        rows = self.scenario.rows_per_second * BATCH_INTERVAL_S
        return rows / (fixed_s + rows / self.marginal_rows_per_s) if self.rows else 0.0


def _submit_batch(config_path: Path, work: Path, start: datetime, end: datetime, archive: bool = True
                  ) -> tuple[float, float, str]:
    """(wall s, CPU s, log) of one ingest_events spark-submit over [start, end), its driver mapping the class archive
    or (archive False) not."""
    import resource

    from lakeops.class_archive import ARCHIVE_ENV
    from lakeops.runtime import spark_submit_command

    named = os.environ.get(ARCHIVE_ENV)
    if not archive:
        os.environ[ARCHIVE_ENV] = "none"
    try:
        command = spark_submit_command("ingest_events", ["--table", "events", "--start", start.isoformat(), "--end",
                                                         end.isoformat(), "--config", str(config_path)], work)
    finally:
        if named is None:
            os.environ.pop(ARCHIVE_ENV, None)
        else:
            os.environ[ARCHIVE_ENV] = named
    command[1:1] = ["--driver-memory", DRIVER_MEMORY]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=job_env())
    seconds = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise RuntimeError(f"ingest_events failed ({done.returncode}):\n{(done.stdout + done.stderr)[-3000:]}")
    return seconds, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), done.stdout + done.stderr


def run_batch(s: BatchScenario, rounds: int = FIXED_ROUNDS) -> BatchMeasured:
    """Runs in one fresh catalog, each over its own one-minute interval: a first tiny one (it creates the tables),
    `rounds` pairs of tiny runs without and with the class archive (the fixed cost), then s.seconds of input landed
    as a backlog, with the archive."""
    from datetime import timedelta

    from lakeops.class_archive import class_archive
    from lakeops.generator.paced import EventPool, land_paced, pace
    from lakeops.phases import parse_phases

    if class_archive() is None:
        raise RuntimeError("batch mode is measured with and without the driver's class archive, and none is built: "
                           "run `python -m lakeops.class_archive` (make setup does)")
    work = Path(tempfile.mkdtemp(prefix="lakeops-bench-batch-"))
    m, pool = BatchMeasured(s), EventPool()
    runs = ["first", *["without", "with"] * rounds, "rows"]
    tiny: dict[str, list[tuple[float, float, dict[str, float]]]] = {"without": [], "with": []}
    try:
        config_path, config = bench_config(work, FULL[0])
        path = config_path.read_text().replace("mode: streaming", "mode: batch")
        config_path.write_text(path)
        for n, kind in enumerate(runs):
            start = datetime.now(UTC).replace(second=0, microsecond=0)
            schedule = pace(s.rows_per_second, s.rows_per_file, s.seconds, backlog=True) if kind == "rows" else pace(
                100, 100, 1, backlog=True)
            run = land_paced(config.landing_root, schedule, f"r{n}", pool)
            end = datetime.now(UTC).replace(second=0, microsecond=0) + timedelta(minutes=1)
            seconds, cpu, text = _submit_batch(config_path, work, start, end, archive=kind != "without")
            found = re.search(r"committed \d+ rows .*; (.+)$", text, re.M)
            phases = parse_phases(found.group(1)) if found else {}
            print(f"  batch run {n + 1}/{len(runs)} ({kind}): {seconds:.1f} s, {cpu:.0f} CPU s", flush=True)
            if kind == "first":
                m.first_s = seconds
            elif kind == "rows":
                m.rows, m.seconds, m.cpu_s, m.phases = run.rows - run.bad, seconds, cpu, phases
            else:
                tiny[kind].append((seconds, cpu, phases))
            while datetime.now(UTC) < end:  # the next run's interval starts after this one's
                time.sleep(0.5)
        m.fixed_s, m.fixed_cpu_s, m.fixed_phases = median_run(tiny["with"])
        m.fixed_without_archive_s, m.fixed_without_archive_cpu_s, _ = median_run(tiny["without"])
        return m
    finally:
        shutil.rmtree(work, ignore_errors=True)


def median_run(runs: list[tuple[float, float, dict[str, float]]]) -> tuple[float, float, dict[str, float]]:
    """The run of median wall time (the lower middle one of an even count), as (wall s, CPU s, phases)."""
    return sorted(runs, key=lambda run: run[0])[(len(runs) - 1) // 2] if runs else (0.0, 0.0, {})


def batch_report(b: BatchMeasured) -> str:
    total = sum(b.phases.values()) or 1
    split = ", ".join(f"{k} {v:.0f} s ({v / total:.0%})" for k, v in b.phases.items())
    inside = sum(b.fixed_phases.values())
    with_archive = ", ".join([f"{k} {v:.1f} s" for k, v in b.fixed_phases.items()]
                             + [f"start-up and the rest {b.fixed_s - inside:.1f} s"])
    interval = f"rows/s of a {BATCH_INTERVAL_S // 60}-minute interval (derived)"
    fixed = markdown_table(["driver JVM", "fixed cost per run (1 file of 100 rows, median)", "CPU s", interval], [
        ["without the class archive", f"{b.fixed_without_archive_s:.1f} s", f"{b.fixed_without_archive_cpu_s:.0f}",
         f"{b.interval_rate(b.fixed_without_archive_s):,.0f}"],
        ["with the class archive", f"{b.fixed_s:.1f} s ({with_archive})", f"{b.fixed_cpu_s:.0f}",
         f"{b.interval_rows_per_s:,.0f}"]])
    rows = markdown_table([f"{b.scenario.seconds} s of input at {b.scenario.rows_per_second:,}/s", "rows/s",
                           "rows/s past the fixed cost", "CPU s per M rows", "time split inside the job"], [
        [f"{b.rows:,} rows in {b.seconds:.0f} s", f"{b.rows / b.seconds:,.0f}" if b.seconds else "-",
         f"{b.marginal_rows_per_s:,.0f}", f"{b.cpu_s / b.rows * 1e6:.0f}" if b.rows else "-", split]])
    return (f"## Batch mode\n\nOne spark-submit of `ingest_events` per interval (local[2], driver {DRIVER_MEMORY}), "
            f"quarantine and micro zonemap on, each run over its own one-minute interval of one fresh catalog. The "
            f"first run creates the table and its quarantine ({b.first_s:.0f} s, once per table); then tiny runs "
            f"into the existing table give the fixed cost, alternately without and with the class archive "
            f"(lakeops.class_archive); then a run over {b.scenario.seconds} s of input, with the archive. A "
            f"{BATCH_INTERVAL_S // 60}-minute interval of {b.scenario.rows_per_second:,} rows/s holds "
            f"{b.scenario.rows_per_second * BATCH_INTERVAL_S:,} rows: its run takes the fixed cost plus those rows at "
            f"the rate past it.\n\n{fixed}\n\n{rows}\n")


def report(ms: list[Measured], load: tuple[str, str]) -> str:
    rows = []
    for m in ms:
        s, minutes = m.scenario, m.seconds / 60 or 1
        fresh = (f"{percentile(m.freshness, 50):.0f} / {percentile(m.freshness, 95):.0f} / {max(m.freshness):.0f}"
                 if m.freshness else "-")
        total = sum(m.phases.values()) or 1
        split = ", ".join(f"{k} {v / total:.0%}" for k, v in m.phases.items())
        rows.append([s.label, f"{s.rows_per_second:,} x {s.seconds} s", f"{m.generator_rows_per_s:,.0f}",
                     f"{m.committed_rows:,}", f"{m.seconds:.0f}", f"{m.rows_per_s:,.0f}",
                     f"{m.steady_rows_per_s:,.0f}", meets_goal(m), fresh,
                     f"{m.cpu_s_per_million:.0f}", f"{m.micro_batches / minutes:.1f}", f"{m.data_files / minutes:.1f}",
                     f"{m.commits / minutes:.1f}", split])
    table = markdown_table(["scenario, commit mode", "input", "landed rows/s", "rows committed", "s", "rows/s committed",
                            "rows/s, first to last commit", f">= {TARGET:,}/s", "freshness median / p95 / max s",
                            "CPU s per M rows", "micro-batches/min", "data files/min", "Iceberg commits/min", "time split"], rows)
    s0 = ms[0].scenario
    return (f"# Streaming ingest throughput\n\nThe supervised streaming job (local[2], driver {DRIVER_MEMORY}) on the "
            f"`events` table with micro zonemaps and quarantine on; files of {s0.rows_per_file:,} rows, trigger "
            f"{s0.trigger_seconds} s, at most {s0.max_files_per_trigger} files per micro-batch. Machine: "
            f"{os.cpu_count()} cores, shared; load average {load[0]} before, {load[1]} after.\n\n{table}\n\n"
            f"Iceberg commits: new metadata files of `events` and its quarantine (a micro-batch with bad lines makes 2 "
            f"in staged mode, the quarantine's and the table's, and 4 in direct mode, a stage and a publish on each). "
            f"Freshness goal: under {FRESHNESS_GOAL_S:.0f} s. `s`: backlog, from the first commit to the last; live, from the "
            f"first file landed to the last commit, so a job that keeps pace shows the landed rate less its last "
            f"micro-batch's delay. A live run meets the rate when files landed at it and every one was readable within "
            f"the freshness goal.\n")


def plot(ms: list[Measured], name: str) -> Path:
    fig, ax = pyplot().subplots(figsize=(8, 3.6))
    for m in ms:
        xs, ys = [], []
        for (t0, r0), (t1, r1) in zip(m.timeline, m.timeline[1:], strict=False):
            if t1 > t0:
                xs.append(t1)
                ys.append((r1 - r0) / (t1 - t0))
        ax.plot(xs, ys, marker="o", markersize=2, linewidth=0.8, label=m.scenario.label)
    ax.axhline(TARGET, color="tab:red", linestyle="--", linewidth=1, label=f"target {TARGET:,} rows/s")
    ax.set_xlabel("s since the measured start")
    ax.set_ylabel("rows/s committed (per commit)")
    ax.set_ylim(bottom=0)
    ax.set_title("Streaming ingest: committed rows/s over time")
    ax.legend()
    return save_figure(fig, name)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m benchmarks {NAME}", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="20 s of input per scenario")
    parser.add_argument("--seconds", type=int, help="seconds of input per streaming scenario (default: the scenarios')")
    parser.add_argument("--stream-only", action="store_true", help="the streaming scenarios only (as --only streaming)")
    parser.add_argument("--batch-seconds", type=int, help="seconds of input of the batch run (default: BATCH's)")
    parser.add_argument("--commit-mode", choices=COMMIT_MODES,
                        help="only the streaming scenarios of this commit mode, no other part (results ingest_throughput_<mode>)")
    parser.add_argument("--scenario", choices=("backlog", "live"), help="only this streaming scenario")
    parser.add_argument("--only", choices=PARTS, help="one part: the events' streaming scenarios, CDC on a "
                        "merge-on-read table, batch mode (results ingest_throughput_<part>), or the zonemap write-impact "
                        "table (results write_impact, as python -m benchmarks write_impact)")
    args = parser.parse_args(argv)
    only = "streaming" if args.stream_only else args.only
    parts = {only} if only else set(PARTS)
    if args.commit_mode or args.scenario:  # a selection of streaming scenarios: nothing else
        parts = {"streaming"}
    scenarios = () if "streaming" not in parts else tuple(
        s for s in (QUICK if args.quick else FULL)
        if args.commit_mode in (None, s.commit_mode) and args.scenario in (None, s.name))
    if args.seconds:
        scenarios = tuple(Scenario(**{**asdict(s), "seconds": args.seconds}) for s in scenarios)
    load_before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"ingest throughput: {load_before}; nproc {os.cpu_count()}", flush=True)
    suffix = (args.commit_mode, args.scenario, only if only and only != "streaming" else None)
    name = output_name(NAME + "".join(f"_{part}" for part in suffix if part), args.quick)
    batch_scenario = BATCH_QUICK if args.quick else BATCH
    if args.batch_seconds:
        batch_scenario = BatchScenario(**{**asdict(batch_scenario), "seconds": args.batch_seconds})
    measured: list[Measured] = []
    for s in scenarios:
        m = run_scenario(s)
        print(f"  {s.label}: {m.committed_rows:,} rows in {m.seconds:.0f} s = {m.rows_per_s:,.0f} rows/s "
              f"({m.steady_rows_per_s:,.0f} first to last commit; goal: {meets_goal(m)}), "
              f"{m.cpu_s_per_million:.0f} CPU s/M rows, phases {m.phases}", flush=True)
        measured.append(m)
        _write(name, measured, None, load_before)
    cdc = None
    if "cdc" in parts:
        cdc = run_cdc(CDC_QUICK if args.quick else CDC, tree_cpu_s, STARTUP_LIMIT_S, DRAIN_LIMIT_S, DRIVER_MEMORY)
        print(f"  cdc: {cdc.records:,} records in {cdc.seconds:.0f} s = {cdc.changes_per_s:,.0f} changes/s, "
              f"{cdc.cpu_s_per_million:.0f} CPU s/M, {cdc.delete_files_per_minute:.1f} delete files/min", flush=True)
        _write(name, measured, None, load_before, cdc)
    batch = run_batch(batch_scenario, 1 if args.quick else FIXED_ROUNDS) if "batch" in parts else None
    if batch is not None:
        print(f"  batch: fixed {batch.fixed_s:.0f} s ({batch.fixed_without_archive_s:.0f} s without the class "
              f"archive), {batch.rows:,} rows in {batch.seconds:.0f} s, "
              f"{batch.interval_rows_per_s:,.0f} rows/s at {BATCH_INTERVAL_S} s intervals", flush=True)
        _write(name, measured, batch, load_before, cdc)
    if "write_impact" in parts:  # its own results (write_impact.*): python -m benchmarks write_impact alone
        from benchmarks import write_impact

        write_impact.main(["--quick"] if args.quick else [])
    return 0


def _write(name: str, measured: list[Measured], batch: BatchMeasured | None, load_before: str,
           cdc: CdcMeasured | None = None) -> None:
    """The report, data and plot of what is measured so far: a part that fails later leaves the earlier ones."""
    load_after = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    loads = (load_before.split("load average:")[-1].strip(), load_after.split("load average:")[-1].strip())
    text = (report(measured, loads) if measured else "# Streaming ingest throughput\n\n(not run yet)\n") + (
        "\n" + cdc_report(cdc) if cdc is not None else "") + (
        "\n" + batch_report(batch) if batch is not None else "")
    write_results(name, text, {
        "run_id": uuid.uuid4().hex, "measured_at": datetime.now(UTC).isoformat(), "nproc": os.cpu_count(),
        "uptime_before": load_before, "uptime_after": load_after,
        "cdc": None if cdc is None else {**asdict(cdc), "delete_files_per_minute": cdc.delete_files_per_minute},
        "batch": None if batch is None else {**asdict(batch), "scenario": asdict(batch.scenario),
                                             "interval_rows_per_s": batch.interval_rows_per_s},
        "scenarios": [{**asdict(m), "scenario": asdict(m.scenario)} for m in measured]})
    if measured:
        plot(measured, name)
    if cdc is not None and cdc.timeline:
        plot_cdc(cdc, name if name.endswith("_cdc") else f"{name}_cdc")
