"""Operators that run lakeops Spark jobs."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Sequence
from typing import Any

from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator

# Every heavy Spark task runs in this pool, so maintenance can never take all slots from ingestion.
# `make airflow`/`make demo` and the tests create it; deployments create it with `airflow pools set`.
SPARK_POOL = "lakeops_spark"
SPARK_POOL_SLOTS = 2


def result_lines(lines: Iterator[Any], found: list[dict[str, Any]]) -> Iterator[Any]:
    """Pass spark-submit's output lines through, keeping the result of each LAKEOPS_RESULT line in `found`."""
    from lakeops.cli.jobs import result_of

    for line in lines:
        text = line.decode(errors="replace") if isinstance(line, bytes) else str(line)
        try:
            result = result_of(text.strip())
        except ValueError:
            result = None
        if result is not None:
            found.append(result)
        yield line


def _capture_results(hook: Any, found: list[dict[str, Any]]) -> None:
    """Have the hook's log processing (which reads spark-submit's output) hand us the job's result lines."""
    process = getattr(hook, "_process_spark_submit_log", None)
    if process is None:  # a provider without it: the result stays in the task log only
        return
    hook._process_spark_submit_log = lambda itr: process(result_lines(iter(itr), found))


class LakeopsSparkSubmitOperator(SparkSubmitOperator):
    """spark-submit one of lakeops' jobs (lakeops/jobs/<job>.py, found in the installed package).

    The Spark connection, jars and --py-files archive are settled when the task runs, never
    at DAG parse time: the connection comes from the config file's spark.conn_id (unless
    conn_id is given), the job file from the package, the jars from the set-up step
    (LAKEOPS_JARS_DIR), the archive from the running library.
    """

    template_fields: Sequence[str] = (*SparkSubmitOperator.template_fields, "job_args")

    def __init__(self, *, job: str, job_args: list[str], conn_id: str | None = None,
                 conf: dict[str, str] | None = None, **kwargs: Any) -> None:
        from lakeops.runtime import submit_conf

        kwargs.setdefault("pool", SPARK_POOL)
        super().__init__(name=f"lakeops {job}", conf=submit_conf(conf), **kwargs)
        self.job = job
        self.job_args = job_args
        self.lakeops_conn_id = conn_id

    def execute(self, context: Any) -> dict[str, Any] | None:  # type: ignore[override]
        """Run the job; its result (the LAKEOPS_RESULT line it prints) is the task's XCom return value, so the
        table-health page reads what a run did without parsing logs. None when the driver's output does not come
        back to spark-submit (cluster deploy mode)."""
        from lakeops.catalog import secret_environment
        from lakeops.class_archive import class_archive, with_class_archive
        from lakeops.config import load_config
        from lakeops.runtime import py_files_archive, spark_jars, spark_job_path

        config = load_config()
        # The catalog's secrets (environment, or the Airflow connection catalog.conn_id, read now) reach the job
        # in its environment: never on the spark-submit command line, and the job needs no Airflow to find them.
        self.env_vars = {**(self.env_vars or {}), **secret_environment(config.catalog)}
        self._conn_id = self.lakeops_conn_id or config.spark.conn_id
        self.application = spark_job_path(self.job)
        self.application_args = list(self.job_args)
        self.jars = ",".join(spark_jars())
        # A driver on another machine (cluster deploy mode) without the file, or with another JDK, ignores it.
        self.conf = with_class_archive(self.conf or {}, class_archive())
        with tempfile.TemporaryDirectory(prefix="lakeops-submit-") as work_dir:
            self.py_files = py_files_archive(work_dir)
            self.log.info("running lakeops job %s with %s on connection %s", self.job, self.application_args, self._conn_id)
            self._hook = self._get_hook()
            found: list[dict[str, Any]] = []
            _capture_results(self._hook, found)
            super().execute(context)
        return found[-1] if found else None
