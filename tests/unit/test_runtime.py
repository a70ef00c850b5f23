"""lakeops.runtime: the spark-submit command of a job as data, the job files found through the
package, and the jars error that says how to get them."""

from __future__ import annotations

from pathlib import Path

import pytest

import lakeops
from lakeops.exceptions import ConfigError, SetupError
from lakeops.runtime import (
    JARS_POM,
    REQUIRED_JARS,
    job_names,
    maven_command,
    spark_jars,
    spark_job_path,
    spark_submit_command,
    submit_conf,
    with_jit_option,
)

PACKAGE = Path(lakeops.__file__).resolve().parent
PROJECT_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def jars(spark_jars):
    return spark_jars


def test_spark_submit_command(jars, tmp_path):
    assert spark_submit_command("stream_events", ["--table", "events", "--mode", "supervised"], tmp_path) == [
        "spark-submit", "--master", "local[2]", "--name", "lakeops stream_events", "--conf", "spark.log.level=WARN",
        "--conf", "spark.driver.extraJavaOptions=-XX:-DontCompileHugeMethods",
        "--conf", "spark.executor.extraJavaOptions=-XX:-DontCompileHugeMethods",
        "--jars", ",".join(str(jars / f"{name}-1.0.jar") for name in sorted(REQUIRED_JARS)),
        "--py-files", "/opt/lakeops/lakeops.zip", str(PACKAGE / "jobs" / "stream_events.py"),
        "--table", "events", "--mode", "supervised",
    ]


def test_spark_submit_command_maps_the_class_archive_of_the_jars_folder(jars, tmp_path):
    (jars / "lakeops-classes.jsa").write_bytes(b"archive")
    command = spark_submit_command("ingest_events", [], tmp_path)
    assert (f"spark.driver.extraJavaOptions=-XX:SharedArchiveFile={jars}/lakeops-classes.jsa "
            "-Xlog:disable -Xlog:all=warning:stderr -XX:-DontCompileHugeMethods") in command
    assert "spark.executor.extraJavaOptions=-XX:-DontCompileHugeMethods" in command  # executors may be elsewhere


def test_the_jit_option_joins_the_java_options_a_conf_already_gives():
    assert with_jit_option({"spark.driver.extraJavaOptions": "-Dlog4j.configurationFile=/etc/spark/log4j2.xml"}) == {
        "spark.driver.extraJavaOptions": "-XX:-DontCompileHugeMethods -Dlog4j.configurationFile=/etc/spark/log4j2.xml",
        "spark.executor.extraJavaOptions": "-XX:-DontCompileHugeMethods",
    }


def test_a_conf_that_names_the_huge_methods_flag_itself_keeps_its_choice():
    conf = {"spark.driver.extraJavaOptions": "-XX:+DontCompileHugeMethods",
            "spark.executor.extraJavaOptions": "-Xss4m -XX:-DontCompileHugeMethods"}
    assert with_jit_option(conf) == conf


def test_submit_conf_lets_the_callers_settings_win():
    assert submit_conf({"spark.log.level": "INFO", "spark.executor.memory": "2g"}) == {
        "spark.log.level": "INFO", "spark.executor.memory": "2g",
        "spark.driver.extraJavaOptions": "-XX:-DontCompileHugeMethods",
        "spark.executor.extraJavaOptions": "-XX:-DontCompileHugeMethods",
    }


def test_spark_submit_command_builds_the_library_archive_when_none_is_given(jars, tmp_path, monkeypatch):
    monkeypatch.delenv("LAKEOPS_PY_FILES")
    command = spark_submit_command("ingest_events", [], tmp_path / "work", master="spark://host:7077")
    assert command[1:3] == ["--master", "spark://host:7077"]
    archive = command[command.index("--py-files") + 1]
    assert archive == str(tmp_path / "work" / "lakeops.zip") and (tmp_path / "work" / "lakeops.zip").stat().st_size > 0


def test_spark_submit_command_without_jars_names_the_set_up_step(tmp_path, monkeypatch):
    monkeypatch.setenv("LAKEOPS_JARS_DIR", str(tmp_path / "none"))
    with pytest.raises(SetupError, match="lakeops-jars") as info:
        spark_submit_command("stream_events", [], tmp_path)
    assert str(tmp_path / "none") in str(info.value) and "LAKEOPS_JARS_DIR" in str(info.value)


def test_in_a_checkout_without_the_setting_the_jars_error_names_make_setup(tmp_path, monkeypatch):
    monkeypatch.delenv("LAKEOPS_JARS_DIR", raising=False)
    monkeypatch.setattr("lakeops.runtime.checkout_root", lambda: tmp_path)
    with pytest.raises(SetupError, match=r"run `make setup`"):
        spark_jars()


def test_an_installed_package_without_the_setting_says_how_to_get_the_jars(monkeypatch):
    monkeypatch.delenv("LAKEOPS_JARS_DIR", raising=False)
    monkeypatch.setattr("lakeops.runtime.checkout_root", lambda: None)
    with pytest.raises(SetupError) as info:
        spark_jars()
    assert "LAKEOPS_JARS_DIR is not set" in str(info.value) and "lakeops-jars" in str(info.value)


def test_every_job_file_is_in_the_package_and_has_a_thin_checkout_twin():
    names = job_names()
    assert names == sorted(p.stem for p in (PROJECT_ROOT / "spark_jobs").glob("*.py"))
    for name in names:
        path = Path(spark_job_path(name))
        assert path.parent == PACKAGE / "jobs" and path.is_file()
        source = path.read_text()
        assert "def main(argv: list[str]) -> int:" in source and 'if __name__ == "__main__":' in source
        assert f"from lakeops.jobs.{name} import main" in (PROJECT_ROOT / "spark_jobs" / f"{name}.py").read_text()


@pytest.mark.parametrize("name", ["nope", "__init__", "../runtime"])
def test_an_unknown_job_is_refused_with_the_known_ones(name):
    with pytest.raises(ConfigError, match="is not a lakeops job; use one of .*ingest_events"):
        spark_job_path(name)


def test_the_shipped_pom_is_the_checkouts_and_maven_copies_its_jars():
    assert JARS_POM.read_text() == (PROJECT_ROOT / "include" / "jvm" / "pom.xml").read_text()
    assert maven_command(JARS_POM, Path("/opt/jars")) == [
        "mvn", "-q", "-B", "-f", str(JARS_POM), "dependency:copy-dependencies", "-DexcludeTransitive=true",
        "-DoutputDirectory=/opt/jars"]
