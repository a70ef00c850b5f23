"""What a piece of Spark work cost, read from the session's own status store: wall time, Spark
jobs, and the bytes of the data and delete files its Iceberg scans opened.

Bytes come from Iceberg's scan metrics ("total data file size (bytes)", "total delete file size
(bytes)") of every BatchScan node of the SQL executions that ran, MERGE target scans included:
file bytes after Iceberg's partition and min/max pruning, before column projection. Spark's task
input metrics are no measure here: Iceberg's Parquet reads do not reach the Hadoop file system
statistics they are built from, so they report a few hundred KB for a scan of tens of MB.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SCAN_BYTES = ("total data file size (bytes)", "total delete file size (bytes)")
SCAN_FILES = ("number of result data files", "number of result delete files")


@dataclass(frozen=True)
class Cost:
    seconds: float
    scanned_bytes: int
    scanned_files: int
    spark_jobs: int


def _last_execution(spark: SparkSession) -> int:
    executions = spark._jsparkSession.sharedState().statusStore().executionsList()
    return max((int(executions.apply(i).executionId()) for i in range(executions.size())), default=-1)


def _last_job(spark: SparkSession) -> int:
    jobs = spark.sparkContext._jsc.sc().statusStore().jobsList(spark._jvm.java.util.ArrayList())
    return max((int(jobs.apply(i).jobId()) for i in range(jobs.size())), default=-1)


def _value(text: str) -> int:
    return int(text.replace(",", "")) if text.replace(",", "").isdigit() else 0


def _scans_since(spark: SparkSession, execution: int) -> tuple[int, int]:
    store = spark._jsparkSession.sharedState().statusStore()
    executions = store.executionsList()
    scanned = files = 0
    for i in range(executions.size()):
        run = executions.apply(i)
        if int(run.executionId()) <= execution:
            continue
        values = store.executionMetrics(run.executionId())
        nodes = store.planGraph(run.executionId()).allNodes()
        for n in range(nodes.size()):
            node = nodes.apply(n)
            if not node.name().startswith("BatchScan"):
                continue
            metrics = node.metrics()
            for m in range(metrics.size()):
                metric = metrics.apply(m)
                value = values.get(metric.accumulatorId())
                if value.isDefined() and metric.name() in SCAN_BYTES:
                    scanned += _value(str(value.get()))
                elif value.isDefined() and metric.name() in SCAN_FILES:
                    files += _value(str(value.get()))
    return scanned, files


def measure(spark: SparkSession, work) -> tuple[Cost, object]:
    """Run work() and return its cost and result."""
    sc = spark.sparkContext._jsc.sc()
    sc.listenerBus().waitUntilEmpty()
    execution, job = _last_execution(spark), _last_job(spark)
    started = time.perf_counter()
    result = work()
    seconds = time.perf_counter() - started
    sc.listenerBus().waitUntilEmpty()
    scanned, files = _scans_since(spark, execution)
    return Cost(seconds, scanned, files, _last_job(spark) - job), result
