"""The installable package, as someone else's Airflow gets it: the wheel built from this repo,
installed into a fresh virtualenv (its dependencies pinned by requirements.lock), used from a
directory outside the checkout with a fresh AIRFLOW_HOME and no plugins folder.

It checks that the library, the job files and the shipped pom come from site-packages, that Airflow
finds the provider and the plugin through the package's entry points (once, also when providers are
discovered eagerly), that the triggerer can import the triggers and the deadline callback, that the
config comes from the Airflow setting and its absence is an error naming both settings, and that a
DAG runs from a DAGs folder holding one short file.

Takes minutes: pip installs Airflow and its dependencies into the new venv (from pip's cache where
it can); marked `package`, so `pytest -m "not package"` leaves it out.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

pytestmark = [pytest.mark.package]

PROJECT_ROOT = Path(__file__).resolve().parents[2]
LOCK = PROJECT_ROOT / "requirements.lock"
# The one file of the DAGs folder (the loader that renders every DAG from the config), and the DAG to run:
# one that needs no Spark.
DAG_FILE, DAG_ID = PROJECT_ROOT / "dags" / "lakeops_dags.py", "table_freshness"
SOURCES = ("pyproject.toml", "README.md", "include", "plugins")
JOBS = sorted(p.stem for p in (PROJECT_ROOT / "spark_jobs").glob("*.py"))


def _run(command: list[str], env: dict[str, str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done


def _last_json(text: str) -> object:
    """The last line of a command's output that is JSON (Airflow may log before it)."""
    for line in reversed(text.strip().splitlines()):
        if line.startswith(("[", "{")):
            return json.loads(line)
    raise AssertionError(f"no JSON line in:\n{text[-3000:]}")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built from a copy of the sources (the checkout gets no build/ or egg-info)."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "src"
    for name in SOURCES:
        path = PROJECT_ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(path, source / name)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(work / "dist"), str(source)],
         dict(os.environ), work)
    [built] = (work / "dist").glob("lakeops-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> dict[str, Path]:
    """A fresh virtualenv with the wheel installed; its dependencies pinned by the lock."""
    root = tmp_path_factory.mktemp("installed")
    python = root / "venv" / "bin" / "python"
    _run([sys.executable, "-m", "venv", str(root / "venv")], dict(os.environ), root)
    _run([str(python), "-m", "pip", "install", "--quiet", "--no-compile", str(wheel), "-c", str(LOCK)],
         dict(os.environ), root, timeout=1800)
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     dict(os.environ), root).stdout.strip())
    outside = root / "elsewhere"
    outside.mkdir()
    return {"root": root, "python": python, "bin": python.parent, "site": site, "cwd": outside}


def _env(venv: dict[str, Path], home: Path, **extra: str) -> dict[str, str]:
    """Nothing of the test session's environment (no PYTHONPATH, LAKEOPS_*, AIRFLOW__*): the venv's
    bin first on PATH, a fresh AIRFLOW_HOME and the default plugins folder under it (absent)."""
    env = {"PATH": f"{venv['bin']}{os.pathsep}/usr/bin{os.pathsep}/bin", "HOME": os.environ.get("HOME", str(home)),
           "LANG": "C.UTF-8", "AIRFLOW_HOME": str(home), "AIRFLOW__CORE__LOAD_EXAMPLES": "False"}
    env.update(extra)
    return env


def test_the_wheel_carries_the_library_the_plugin_the_jobs_and_the_pom(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        entry_points = archive.read(f"{dist_info}/entry_points.txt").decode()
        metadata = archive.read(f"{dist_info}/METADATA").decode()
        pom = archive.read("lakeops/jvm/pom.xml").decode()
    assert {f"lakeops/jobs/{job}.py" for job in JOBS} <= names
    assert {"lakeops/config_file.py", "lakeops/runtime.py", "lakeops_airflow/plugin.py", "lakeops_airflow/provider_info.py",
            "lakeops_airflow/triggers.py", "lakeops_airflow/deadlines.py"} <= names
    assert not any(n.startswith(("spark_jobs/", "dags/", "tests/", "include/")) for n in names)
    assert pom == (PROJECT_ROOT / "include" / "jvm" / "pom.xml").read_text()
    assert "provider_info = lakeops_airflow.provider_info:get_provider_info" in entry_points
    assert "lakeops = lakeops_airflow.plugin:LakeopsPlugin" in entry_points
    assert "lakeops-jars = lakeops.runtime:jars_main" in entry_points and "lakeops = lakeops.cli:main" in entry_points
    requires = [Requirement(line.split(":", 1)[1]) for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    runtime = {r.name: r for r in requires if r.marker is None}
    assert runtime["pyspark"].specifier == runtime["pyspark-client"].specifier, "pyspark and pyspark-client must match"
    assert {"apache-airflow", "apache-airflow-providers-apache-spark", "pyiceberg", "pyyaml", "pendulum"} <= set(runtime)
    assert not {"pytest", "hypothesis", "matplotlib", "aiosmtpd"} & set(runtime), sorted(runtime)


def test_the_installed_package_is_used_from_site_packages(venv, tmp_path):
    code = """if True:
        import json, sys, lakeops, lakeops_airflow
        from lakeops.runtime import JARS_POM, spark_job_path
        from lakeops.config_file import checkout_root
        print(json.dumps({"lakeops": lakeops.__file__, "lakeops_airflow": lakeops_airflow.__file__,
                          "job": spark_job_path("ingest_events"), "jobs": [spark_job_path(n) for n in sys.argv[1:]],
                          "pom": str(JARS_POM), "checkout": str(checkout_root())}))
    """
    found = _last_json(_run([str(venv["python"]), "-c", code, *JOBS], _env(venv, tmp_path / "airflow"), venv["cwd"]).stdout)
    site = str(venv["site"])
    assert isinstance(found, dict)
    for key in ("lakeops", "lakeops_airflow", "job", "pom"):
        assert found[key].startswith(site + "/"), f"{key}: {found[key]} is not in {site}"
    assert found["job"] == f"{site}/lakeops/jobs/ingest_events.py"
    assert all(Path(p).is_file() and p.startswith(site) for p in found["jobs"])
    assert found["checkout"] == "None"
    printed = _run([str(venv["bin"] / "lakeops-jars"), "--print-pom"], _env(venv, tmp_path / "airflow"), venv["cwd"]).stdout
    assert printed.strip() == found["pom"] and Path(found["pom"]).is_file()


def test_without_a_config_setting_the_error_names_both(venv, tmp_path):
    code = "from lakeops.config import load_config; load_config()"
    done = subprocess.run([str(venv["python"]), "-c", code], env=_env(venv, tmp_path / "airflow"), cwd=venv["cwd"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode != 0
    assert "ConfigError: no lakeops config file" in done.stderr, done.stderr[-3000:]
    assert all(name in done.stderr for name in ("LAKEOPS_CONFIG", "[lakeops] config_file", "AIRFLOW__LAKEOPS__CONFIG_FILE"))


def test_airflow_lists_the_provider_and_the_plugin(venv, tmp_path):
    env = _env(venv, tmp_path / "airflow")
    providers = _last_json(_run(["airflow", "providers", "list", "--output", "json"], env, venv["cwd"]).stdout)
    assert isinstance(providers, list)
    [lakeops] = [p for p in providers if p["package_name"] == "lakeops"]
    assert lakeops["version"] == "0.1.0"
    plugins = _last_json(_run(["airflow", "plugins", "--output", "json"], env, venv["cwd"]).stdout)
    assert isinstance(plugins, list)
    [plugin] = [p for p in plugins if p["name"] == "lakeops"]
    assert "airflow.plugins" in plugin["source"] and "lakeops_airflow.plugin:LakeopsPlugin" in plugin["source"]
    assert [v["href"] for v in plugin["external_views"]] == ["/lakeops/health/"]


def test_the_plugin_loads_once_and_the_triggerer_can_import_the_triggers_and_callbacks(venv, tmp_path):
    """With providers discovered eagerly as well as lazily: one registration, no import error. The
    triggerer imports triggers and deadline callbacks by path; the [lakeops] option is Airflow's."""
    code = """if True:
        import json
        from airflow import plugins_manager
        from airflow._shared.module_loading import import_string
        from airflow.providers_manager import ProvidersManager
        plugins = [p["name"] for p in plugins_manager.get_plugin_info()]
        paths = ["lakeops_airflow.triggers.TableHealthTrigger", "lakeops_airflow.triggers.TableHealthWatchTrigger",
                 "lakeops_airflow.deadlines.deadline_missed"]
        print(json.dumps({"plugins": plugins, "errors": plugins_manager.get_import_errors(),
                          "imported": [import_string(p).__module__ for p in paths],
                          "option": [s for s, _ in ProvidersManager().provider_configs if s == "lakeops"]}))
    """
    for lazy in ("True", "False"):
        env = _env(venv, tmp_path / f"airflow-{lazy}", AIRFLOW__CORE__LAZY_DISCOVER_PROVIDERS=lazy)
        found = _last_json(_run([str(venv["python"]), "-c", code], env, venv["cwd"]).stdout)
        assert isinstance(found, dict)
        assert found["plugins"].count("lakeops") == 1 and found["errors"] == {}, found
        assert found["imported"] == ["lakeops_airflow.triggers"] * 2 + ["lakeops_airflow.deadlines"]
        assert found["option"] == ["lakeops"]


def test_a_dag_runs_from_a_dags_folder_holding_one_file(venv, tmp_path):
    """The DAGs folder holds one short file, the loader; the config comes from the Airflow setting; the
    catalog is embedded, under a temporary LAKEOPS_DATA_DIR. The run goes through dag.test() in the venv (what
    `airflow dags test` does, minus the DAG's deadline alert: in Airflow 3.3.2 a DAG with one fails
    at the end of dag.test(), see lakeops.dag_runs)."""
    dags = tmp_path / "dags"
    dags.mkdir()
    shutil.copy2(DAG_FILE, dags / DAG_FILE.name)
    config = tmp_path / "config" / "lakeops.yaml"
    config.parent.mkdir()
    shutil.copy2(PROJECT_ROOT / "include" / "lakeops.yaml", config)
    shutil.copytree(PROJECT_ROOT / "include" / "models", config.parent / "models")  # the models' SQL, beside the file
    env = _env(venv, tmp_path / "airflow", AIRFLOW__CORE__DAGS_FOLDER=str(dags), AIRFLOW__LAKEOPS__CONFIG_FILE=str(config),
               LAKEOPS_DATA_DIR=str(tmp_path / "data"))
    _run(["airflow", "db", "migrate"], env, venv["cwd"])
    code = """if True:
        import json, sys
        from datetime import UTC, datetime
        from lakeops.config import default_config_path
        from lakeops.dag_runs import load_dag, run_dag_test
        dag = load_dag(sys.argv[1])
        run = run_dag_test(dag, datetime.now(UTC))
        tasks = {ti.task_id: str(ti.state) for ti in run.get_task_instances()}
        print(json.dumps({"state": str(run.state), "tasks": tasks, "fileloc": dag.fileloc, "config": str(default_config_path())}))
    """
    found = _last_json(_run([str(venv["python"]), "-c", code, DAG_ID], env, venv["cwd"]).stdout)
    assert isinstance(found, dict)
    assert found["state"] == "success" and set(found["tasks"].values()) == {"success"}, found
    assert found["fileloc"] == str(dags / DAG_FILE.name) and found["config"] == str(config)
    assert [p.name for p in dags.glob("*.py")] == [DAG_FILE.name]
