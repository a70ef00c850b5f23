"""What the compaction benchmark measures: compute (wall time, and CPU seconds of the Spark JVM and
of this Python process, which the machine's other load barely inflates) and query times taken
round-robin over the tables so a burst of outside load hits them alike."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass
class Cost:
    wall_s: float = 0.0
    jvm_cpu_s: float = 0.0
    """CPU seconds of the Spark driver JVM (local mode: driver and executors), user + system."""
    py_cpu_s: float = 0.0
    """CPU seconds of this Python process (pyiceberg metadata reads, planning)."""
    calls: int = 0

    @property
    def cpu_s(self) -> float:
        return self.jvm_cpu_s + self.py_cpu_s

    def add(self, other: Cost) -> None:
        self.wall_s += other.wall_s
        self.jvm_cpu_s += other.jvm_cpu_s
        self.py_cpu_s += other.py_cpu_s
        self.calls += other.calls

    def as_dict(self) -> dict[str, float]:
        return {**{k: round(v, 3) for k, v in asdict(self).items()}, "cpu_s": round(self.cpu_s, 3)}


class Meter:
    """Cost of a block: wall time and CPU time of the JVM (from /proc) and of Python."""

    def __init__(self, spark: SparkSession) -> None:
        self._stat = f"/proc/{spark._jvm.java.lang.ProcessHandle.current().pid()}/stat"
        self._tick = os.sysconf("SC_CLK_TCK")

    def _jvm_cpu(self) -> float:
        with open(self._stat) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / self._tick  # utime, stime

    @contextmanager
    def measure(self, into: Cost) -> Iterator[None]:
        wall, jvm, py = time.perf_counter(), self._jvm_cpu(), time.process_time()
        try:
            yield
        finally:
            into.add(Cost(time.perf_counter() - wall, self._jvm_cpu() - jvm, time.process_time() - py, 1))


def time_queries(meter: Meter, run: dict[str, Callable[[], Any]], repeats: int) -> dict[str, dict[str, float]]:
    """Median wall time and median JVM CPU time of each query, the queries taken round-robin
    `repeats` times (a burst of outside load hits every table alike)."""
    costs: dict[str, list[Cost]] = {name: [] for name in run}
    for _ in range(repeats):
        for name, query in run.items():
            cost = Cost()
            with meter.measure(cost):
                query()
            costs[name].append(cost)
    return {name: {"wall_s": statistics.median(c.wall_s for c in values),
                   "cpu_s": statistics.median(c.jvm_cpu_s for c in values)} for name, values in costs.items()}

