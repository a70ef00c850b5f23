"""What the Spark operator hands spark-submit, settled when the task runs: the job file of the package, the jars,
and the driver's class archive (lakeops.class_archive) when one is built, before the driver options it was given."""

from __future__ import annotations

import pytest
from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator

from lakeops_airflow.operators import LakeopsSparkSubmitOperator


@pytest.fixture
def submitted(spark_jars, monkeypatch):
    """Run the operator's execute with spark-submit itself replaced: the settings it would run with."""
    seen: dict = {}
    monkeypatch.setattr(LakeopsSparkSubmitOperator, "_get_hook", lambda self: object())
    monkeypatch.setattr(SparkSubmitOperator, "execute",
                        lambda self, context: seen.update(conf=dict(self.conf), application=self.application))

    def run(**kwargs) -> dict:
        LakeopsSparkSubmitOperator(task_id="t", job="ingest_events", job_args=[], **kwargs).execute({})
        return seen

    return spark_jars, run


def test_the_driver_maps_the_class_archive_of_the_jars_folder(submitted):
    jars, run = submitted
    (jars / "lakeops-classes.jsa").write_bytes(b"archive")
    conf = run(conf={"spark.driver.extraJavaOptions": "-Xss4m"})["conf"]
    assert conf["spark.driver.extraJavaOptions"] == (
        f"-XX:SharedArchiveFile={jars}/lakeops-classes.jsa -Xlog:disable -Xlog:all=warning:stderr "
        "-XX:-DontCompileHugeMethods -Xss4m")
    assert "SharedArchiveFile" not in conf["spark.executor.extraJavaOptions"]


def test_without_an_archive_the_driver_options_are_the_ones_given(submitted):
    _, run = submitted
    seen = run()
    assert seen["conf"]["spark.driver.extraJavaOptions"] == "-XX:-DontCompileHugeMethods"
    assert seen["application"].endswith("lakeops/jobs/ingest_events.py")
