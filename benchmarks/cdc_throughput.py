"""CDC changes applied per second to a merge-on-read table by the supervised streaming job, and the delete files it
leaves: part of `python -m benchmarks ingest_throughput` (--cdc-only runs it alone).

The shipped `orders` table (a CDC table: MERGE per micro-batch, merge-on-read, quarantine on, exactly once) in a fresh
embedded catalog, fed by a backlog of Debezium-shaped changes from the generator (an initial snapshot of past days,
then a stream of creates, updates and deletes whose updates favour recent orders), one file per arrival minute,
at most one file per micro-batch. Measured from the first commit to the last, on the snapshots' own commit times.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks.common import job_env, markdown_table, pyplot, save_figure, stop_job, streamed_config
from lakeops.batches import BATCH_ID_PROPERTY


@dataclass(frozen=True)
class CdcScenario:
    minutes: int
    """Arrival minutes of the change stream (one file per table a minute)."""
    changes_per_minute: int
    """Changes a minute over users and orders (orders take about 60%)."""
    history_days: int
    history_orders_per_day: int
    trigger_seconds: int = 10
    max_files_per_trigger: int = 1


CDC = CdcScenario(minutes=10, changes_per_minute=40_000, history_days=2, history_orders_per_day=20_000)
CDC_QUICK = CdcScenario(minutes=2, changes_per_minute=2_000, history_days=1, history_orders_per_day=500)


@dataclass(frozen=True)
class Batch:
    """One committed micro-batch of the table, read from its snapshots."""

    batch_id: str
    committed_ms: int
    """Commit time of its last snapshot (the published one)."""
    records: int
    """Change records it consumed: applied, quarantined and skipped."""
    data_files: int
    delete_files: int


def batches(table) -> list[Batch]:
    """The table's committed batches in commit order. A batch's files are counted on its own snapshots only, not on a
    published copy (published-wap-id), which re-adds the same files."""
    found: dict[str, Batch] = {}
    for snap in table.snapshots():
        summary = snap.summary or {}
        batch_id = summary.get(BATCH_ID_PROPERTY)
        if not batch_id:
            continue
        copy = bool(summary.get("published-wap-id"))
        records = sum(int(summary.get(k) or 0) for k in ("lakeops.rows", "lakeops.quarantined", "lakeops.skipped"))
        data = 0 if copy else int(summary.get("added-data-files") or 0)
        deletes = 0 if copy else int(summary.get("added-delete-files") or 0)
        seen = found.get(batch_id)
        found[batch_id] = Batch(batch_id, max(snap.timestamp_ms, seen.committed_ms if seen else 0), records,
                                data + (seen.data_files if seen else 0), deletes + (seen.delete_files if seen else 0))
    return sorted(found.values(), key=lambda b: b.committed_ms)


@dataclass
class CdcMeasured:
    scenario: CdcScenario
    landed: int = 0
    """Change records landed for the table, its initial snapshot included."""
    records: int = 0
    """Records consumed between the first commit and the last (the first micro-batch's excluded)."""
    seconds: float = 0.0
    changes_per_s: float = 0.0
    cpu_s: float = 0.0
    cpu_s_per_million: float = 0.0
    micro_batches: int = 0
    data_files: int = 0
    delete_files: int = 0
    """Delete files the measured micro-batches added."""
    delete_files_at_end: int = 0
    """Delete files live in the table's current snapshot when the backlog is drained (nothing compacted)."""
    drained: bool = True
    timeline: list[tuple[float, int]] = field(default_factory=list)

    @property
    def delete_files_per_minute(self) -> float:
        return self.delete_files / (self.seconds / 60) if self.seconds else 0.0

    def rates(self) -> list[tuple[float, float]]:
        """(seconds since the first commit, changes/s of the micro-batch committed then) for every measured one."""
        return [(t1, (r1 - r0) / (t1 - t0)) for (t0, r0), (t1, r1) in zip(self.timeline, self.timeline[1:], strict=False)
                if t1 > t0]


def measure(found: list[Batch], m: CdcMeasured) -> CdcMeasured:
    """Rates from the committed batches: from the first commit to the last, the first batch's records excluded."""
    if len(found) < 2:
        return m
    first, rest = found[0], found[1:]
    m.seconds = (rest[-1].committed_ms - first.committed_ms) / 1000
    m.records = sum(b.records for b in rest)
    m.changes_per_s = m.records / m.seconds if m.seconds else 0.0
    m.micro_batches = len(rest)
    m.data_files = sum(b.data_files for b in rest)
    m.delete_files = sum(b.delete_files for b in rest)
    total = 0
    for b in found:
        total += b.records
        m.timeline.append((round((b.committed_ms - first.committed_ms) / 1000, 1), total))
    return m


def run_cdc(s: CdcScenario, cpu_of, startup_limit_s: float, drain_limit_s: float, driver_memory: str,
            poll_s: float = 2.0) -> CdcMeasured:
    """Land the backlog, run the streaming job on `orders` until every landed record is consumed, measure."""
    from lakeops.catalog import load_catalog
    from lakeops.generator import generate_cdc
    from lakeops.runtime import spark_submit_command

    work = Path(tempfile.mkdtemp(prefix="lakeops-bench-cdc-"))
    m = CdcMeasured(s)
    try:
        config_path, config = streamed_config(work, "orders", s.trigger_seconds, s.max_files_per_trigger)
        start = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(minutes=s.minutes + 1)
        stats = generate_cdc(config.landing_root, start, s.minutes, s.changes_per_minute, seed=17,
                             history_days=s.history_days, history_orders_per_day=s.history_orders_per_day,
                             order_age_skew=1.5)
        m.landed = stats.snapshot_rows["orders"] + sum(stats.changes["orders"].values())
        print(f"  cdc: landed {m.landed:,} orders change records ({stats.snapshot_rows['orders']:,} of them the initial "
              f"snapshot) in {s.minutes + 1} files", flush=True)
        command = spark_submit_command("stream_events", ["--table", "orders", "--mode", "supervised", "--run-seconds",
                                                         "21600", "--config", str(config_path)], work)
        command[1:1] = ["--driver-memory", driver_memory]
        log_path = work / "stream.log"
        with open(log_path, "w") as out:
            job = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env=job_env())
        try:
            catalog, began, cpu0 = load_catalog(config.catalog), time.monotonic(), None
            found: list[Batch] = []
            while True:
                if job.poll() is not None:
                    raise RuntimeError(f"the streaming job exited ({job.returncode}):\n{log_path.read_text()[-3000:]}")
                if catalog.table_exists(config.identifier("orders")):
                    found = batches(catalog.load_table(config.identifier("orders")))
                if found and cpu0 is None:
                    cpu0 = cpu_of(job.pid)  # from the first commit on, as the rates
                if sum(b.records for b in found) >= m.landed:
                    break
                limit = drain_limit_s if found else startup_limit_s
                if time.monotonic() - began > limit:
                    m.drained = False
                    break
                time.sleep(poll_s)
            m.cpu_s = cpu_of(job.pid) - (cpu0 or 0.0)
            current = catalog.load_table(config.identifier("orders")).current_snapshot()
            m.delete_files_at_end = int((current.summary or {}).get("total-delete-files") or 0) if current else 0
        finally:
            stop_job(job)
        measure(found, m)
        m.cpu_s_per_million = m.cpu_s / m.records * 1e6 if m.records else 0.0
        return m
    finally:
        shutil.rmtree(work, ignore_errors=True)


def cdc_report(m: CdcMeasured) -> str:
    s = m.scenario
    table = markdown_table(
        ["input", "records consumed", "s", "changes/s", "CPU s per M changes", "micro-batches", "data files/min",
         "delete files/min", "delete files live at the end"],
        [[f"{s.history_days} days of orders ({s.history_orders_per_day:,} a day), then {s.minutes} min of "
          f"{s.changes_per_minute:,} changes/min", f"{m.records:,} of {m.landed:,}", f"{m.seconds:.0f}",
          f"{m.changes_per_s:,.0f}", f"{m.cpu_s_per_million:.0f}", str(m.micro_batches),
          f"{m.data_files / (m.seconds / 60):.1f}" if m.seconds else "-", f"{m.delete_files_per_minute:.1f}",
          str(m.delete_files_at_end)]])
    drained = "" if m.drained else " **The backlog was not drained within the time limit.**"
    return (f"## CDC on a merge-on-read table\n\nThe supervised streaming job on `orders` (MERGE per micro-batch, "
            f"merge-on-read, quarantine on, exactly once), at most {s.max_files_per_trigger} landed file per "
            f"micro-batch, trigger {s.trigger_seconds} s, fed by a backlog; measured from the first commit to the last, "
            f"the first micro-batch (the initial snapshot) excluded. Nothing compacts during the run.{drained}\n\n"
            f"{table}\n")


def plot_cdc(m: CdcMeasured, name: str) -> Path:
    """Changes applied per second, micro-batch by micro-batch, with the run's rate."""
    fig, ax = pyplot().subplots(figsize=(8, 3.2))
    points = m.rates()
    ax.plot([t for t, _ in points], [r for _, r in points], marker="o", markersize=3, linewidth=0.8,
            label="changes/s per micro-batch")
    ax.axhline(m.changes_per_s, color="tab:gray", linestyle="--", linewidth=1,
               label=f"first commit to last: {m.changes_per_s:,.0f}/s")
    ax.set_xlabel("s since the first commit")
    ax.set_ylabel("changes/s applied")
    ax.set_ylim(bottom=0)
    ax.set_title(f"CDC on merge-on-read orders: {m.delete_files_per_minute:.0f} delete files added a minute")
    ax.legend(loc="lower right")
    return save_figure(fig, name)
