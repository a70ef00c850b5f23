"""Operators that run lakeops Spark jobs."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from typing import Any

from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator

# Every heavy Spark task runs in this pool, so maintenance can never take all slots from ingestion.
# `make airflow`/`make demo` and the tests create it; deployments create it with `airflow pools set`.
SPARK_POOL = "lakeops_spark"
SPARK_POOL_SLOTS = 2


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
        # Spark's INFO chatter would bury the job's own progress lines in the task log.
        kwargs.setdefault("pool", SPARK_POOL)
        super().__init__(name=f"lakeops {job}", conf={"spark.log.level": "WARN", **(conf or {})}, **kwargs)
        self.job = job
        self.job_args = job_args
        self.lakeops_conn_id = conn_id

    def execute(self, context: Any) -> None:
        from lakeops.catalog import secret_environment
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
        with tempfile.TemporaryDirectory(prefix="lakeops-submit-") as work_dir:
            self.py_files = py_files_archive(work_dir)
            self.log.info("running lakeops job %s with %s on connection %s", self.job, self.application_args, self._conn_id)
            return super().execute(context)
