"""What the command line reads from a Spark job's output: its result line and, on failure, its message."""

from __future__ import annotations

from lakeops.cli.jobs import failure_message, result_of


def test_the_result_line_is_parsed_and_other_lines_are_progress():
    assert result_of('LAKEOPS_RESULT {"status": "done", "rows": 5}') == {"status": "done", "rows": 5}
    assert result_of("2026-11-21 10:00:00,001 INFO lakeops.spark.compact: compacting") is None


def test_a_lakeops_error_is_reported_by_its_message():
    lines = ["2026-11-21 10:00:00,001 INFO lakeops.zonemap: reading",
             "2026-11-21 10:00:01,002 ERROR lakeops.job: table a.b has no zonemap columns; set zonemap.columns"]
    assert failure_message(lines) == "table a.b has no zonemap columns; set zonemap.columns"


def test_a_crash_is_reported_with_the_exception_its_traceback_ends_with():
    lines = ["2026-11-21 10:00:01,002 ERROR lakeops.job: job failed", "Traceback (most recent call last):",
             '  File "x.py", line 1, in <module>', "py4j.protocol.Py4JJavaError: An error occurred while calling o42.sql", ""]
    assert failure_message(lines) == "job failed: py4j.protocol.Py4JJavaError: An error occurred while calling o42.sql"


def test_a_job_spark_could_not_start_is_reported_by_the_exception_spark_printed():
    stderr = ["WARN NativeCodeLoader: Unable to load native-hadoop library",
              "Exception in thread \"main\" org.apache.spark.SparkException: Could not parse Master URL: 'nonsense'",
              "\tat org.apache.spark.SparkContext$.createTaskScheduler(SparkContext.scala:3200)"]
    assert failure_message([], stderr) == stderr[1]


def test_otherwise_the_last_line_said():
    assert failure_message(["starting", "halfway"], []) == "halfway"
    assert failure_message([], ["killed"]) == "killed"
    assert failure_message([]) == "it printed nothing"
