"""Every DAG file in dags/ imports cleanly, does nothing heavy at parse time (it reads the local config
file and nothing else: no catalog, no connection, no Spark), and every DAG it renders follows the
project's DAG conventions (a doc, an owner, retries with backoff, Spark in its pool, a deadline alert,
catchup explicit, a data interval per run).

The DAG files are discovered at collection time (dags/*.py), so new DAG files are checked
without editing this module. Parse times are printed (run with -s or -rP to see them), never asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pendulum
import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DAGS_DIR = PROJECT_ROOT / "dags"
# One DAG per file; "_"-prefixed modules (e.g. __init__.py) are not DAG files.
DAG_FILES = sorted(p for p in DAGS_DIR.glob("*.py") if not p.name.startswith("_"))

HEAVY_MODULES = ("pyspark", "pyiceberg", "boto3")
REQUIRED_TAG = "lakeops"
MAX_ACTIVE_RUNS_LIMIT = 4
SAMPLE_RUN_AFTER = pendulum.datetime(2026, 11, 21, 10, 3, tz="UTC")
SUBPROCESS_TIMEOUT_S = 300  # a hang guard only; parse time itself is printed, not asserted
REPORT_MARKER = "LAKEOPS_DAG_INTEGRITY_REPORT "
# Every DAG's deadline alert goes through this callback (lakeops_airflow.deadlines.dag_deadline). Its
# interval comes from the config's `alerts` section, read at parse time by load_alerts_config: one local
# file, no catalog or connection, so the parse-time check below does not count it as a lookup.
DEADLINE_CALLBACK = "lakeops_airflow.deadlines.deadline_missed"

# Airflow defaults the convention checks compare against, pinned while the "strict" bag parses, so a
# DAG passes only if it sets these itself: an unset catchup becomes True (so `catchup is False` proves
# it is explicit), retries 0, owner "airflow", max_active_runs 16.
PINNED_DEFAULTS = {
    "AIRFLOW__SCHEDULER__CATCHUP_BY_DEFAULT": "True",
    "AIRFLOW__CORE__DEFAULT_TASK_RETRIES": "0",
    "AIRFLOW__OPERATORS__DEFAULT_OWNER": "airflow",
    "AIRFLOW__CORE__MAX_ACTIVE_RUNS_PER_DAG": "16",
}

# Runs in a fresh interpreter: wraps the lookups that must not happen at parse time, imports one DAG
# file the way the DAG processor would (DAG folder on sys.path, file loaded as a module), and prints a
# JSON report. The wrappers only record calls and then call the original; nothing is mocked out of the
# DAG's behaviour. They are installed as module/class attributes because callers may reach them
# through the module (`lakeops.config.load_config(...)`) as well as through `from ... import`.
PARSE_HARNESS = r'''
import functools, importlib.util, json, os, sys, time, traceback

dag_file, marker, heavy = sys.argv[1], sys.argv[2], tuple(sys.argv[3].split(","))
calls = {}
heavy_importers = {}


class _HeavyImportRecorder:
    """Records who first imports a heavy module; finds nothing itself, so the import proceeds."""

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        if top in heavy and top not in heavy_importers:
            frames = [f for f in traceback.extract_stack()[:-1] if not f.filename.startswith("<frozen")]
            heavy_importers[top] = "".join(traceback.format_list(frames[-8:]))
        return None


def _shown(value):
    # ids and paths are shown; anything else only by type, so no secret reaches the test log
    return value if isinstance(value, (str, os.PathLike)) else "<" + type(value).__name__ + ">"


def _recording(name, func, skip_first=False):
    calls[name] = []

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        shown = [str(_shown(a)) for a in args[1 if skip_first else 0:]]
        shown += [k + "=" + str(_shown(v)) for k, v in kwargs.items()]
        calls[name].append(name.rpartition(".")[2] + "(" + ", ".join(shown) + ")")
        return func(*args, **kwargs)

    return wrapper


def _record_classmethod(cls, attr, name):
    original = cls.__dict__[attr].__func__
    setattr(cls, attr, classmethod(_recording(name, original, skip_first=True)))


import airflow.sdk
import lakeops.catalog
import lakeops.config

_record_classmethod(airflow.sdk.BaseHook, "get_connection", "airflow.sdk.BaseHook.get_connection")
# What BaseHook.get_connection calls, and what DAG code could call directly.
_record_classmethod(airflow.sdk.Connection, "get", "airflow.sdk.Connection.get")
try:
    from airflow.models.connection import Connection as _ModelConnection
except ImportError:
    _ModelConnection = None
if _ModelConnection is not None and "get_connection_from_secrets" in _ModelConnection.__dict__:
    _record_classmethod(_ModelConnection, "get_connection_from_secrets",
                        "airflow.models.connection.Connection.get_connection_from_secrets")
lakeops.catalog.load_catalog = _recording("lakeops.catalog.load_catalog", lakeops.catalog.load_catalog)

preloaded = [m for m in heavy if m in sys.modules]
sys.meta_path.insert(0, _HeavyImportRecorder())
dag_dir = os.path.dirname(os.path.abspath(dag_file))
if dag_dir not in sys.path:
    sys.path.append(dag_dir)

error = None
started = time.perf_counter()
try:
    spec = importlib.util.spec_from_file_location("lakeops_dag_under_test", dag_file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
except BaseException:
    error = traceback.format_exc()
import_seconds = time.perf_counter() - started

print(marker + json.dumps({
    "error": error,
    "import_seconds": import_seconds,
    "preloaded_heavy": preloaded,
    "heavy_loaded": [m for m in heavy if m in sys.modules],
    "heavy_importers": heavy_importers,
    "calls": calls,
}), flush=True)
'''


def _rel(path: Path) -> str:
    return str(path.relative_to(PROJECT_ROOT))


def _ids(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]


def _dagbag(env: dict[str, str]):
    from airflow.dag_processing.dagbag import DagBag

    with pytest.MonkeyPatch.context() as mp:
        for key, value in env.items():
            mp.setenv(key, value)
        return DagBag(dag_folder=str(DAGS_DIR))


@pytest.fixture(scope="session")
def dagbag():
    """The DAG folder parsed as configured by conftest (for the import checks)."""
    return _dagbag({})


@pytest.fixture(scope="session")
def strict_dagbag():
    """The DAG folder parsed with PINNED_DEFAULTS (for the convention checks)."""
    return _dagbag(PINNED_DEFAULTS)


def _import_error_files(bag) -> dict[Path, str]:
    out = {}
    for key, message in bag.import_errors.items():
        path = Path(key)
        out[(path if path.is_absolute() else DAGS_DIR / path).resolve()] = message
    return out


def _dags_of(bag, dag_file: Path) -> list:
    return [dag for dag in bag.dags.values() if Path(dag.fileloc).resolve() == dag_file.resolve()]


def _parse_in_fresh_interpreter(dag_file: Path, cwd: Path) -> dict:
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", PARSE_HARNESS, str(dag_file), REPORT_MARKER, ",".join(HEAVY_MODULES)],
        env=os.environ.copy(), cwd=cwd, capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT_S,
    )
    reports = [line[len(REPORT_MARKER):] for line in proc.stdout.splitlines() if line.startswith(REPORT_MARKER)]
    assert proc.returncode == 0 and len(reports) == 1, (
        f"the parse harness failed for {_rel(dag_file)} (exit {proc.returncode})\n"
        f"stdout:\n{proc.stdout[-4000:]}\nstderr:\n{proc.stderr[-4000:]}")
    return {**json.loads(reports[0]), "wall_seconds": time.perf_counter() - started}


# --- 1. imports -------------------------------------------------------------------------------

def test_dag_folder_has_dag_files():
    assert DAG_FILES, f"no DAG files found in {DAGS_DIR}"


def test_dag_folder_has_no_import_errors(dagbag):
    assert not dagbag.import_errors, "DAG import errors:\n" + "\n\n".join(
        f"{path}:\n{message}" for path, message in dagbag.import_errors.items())


@pytest.mark.parametrize("dag_file", DAG_FILES, ids=_ids(DAG_FILES))
def test_dag_file_imports_and_defines_a_dag(dagbag, dag_file):
    errors = _import_error_files(dagbag)
    assert dag_file.resolve() not in errors, f"{_rel(dag_file)} fails to import:\n{errors[dag_file.resolve()]}"
    assert _dags_of(dagbag, dag_file), f"{_rel(dag_file)} defines no DAG"


# --- 2. nothing heavy at parse time --------------------------------------------------------------

@pytest.mark.parametrize("dag_file", DAG_FILES, ids=_ids(DAG_FILES))
def test_dag_file_parse_is_light(dag_file, tmp_path):
    report = _parse_in_fresh_interpreter(dag_file, tmp_path)
    print(f"\n{_rel(dag_file)}: DAG file import took {report['import_seconds']:.3f} s in a fresh interpreter "
          f"(harness start-up with Airflow itself: {report['wall_seconds']:.1f} s)")

    assert not report["preloaded_heavy"], (
        f"the harness itself loaded {report['preloaded_heavy']} before the DAG file: the check is void")
    problems = []
    if report["error"] is not None:
        problems.append(f"fails to import:\n{report['error']}")
    if report["heavy_loaded"]:
        problems.append(
            f"imports {report['heavy_loaded']} at parse time; import them inside functions. "
            "First imported from:\n" + "\n".join(
                f"--- {name}\n{stack}" for name, stack in report["heavy_importers"].items()))
    made = {name: made_calls for name, made_calls in report["calls"].items() if made_calls}
    if made:
        problems.append("looks up connections or loads the lakeops catalog at parse time "
                        "(do it in execute() or a task):\n" + "\n".join(
                            f"  {name}: {made_calls}" for name, made_calls in made.items()))
    assert not problems, f"{_rel(dag_file)} " + "\n\nand ".join(problems)


# --- 3. conventions ----------------------------------------------------------------------------

def _strict_dags(strict_dagbag, dag_file: Path) -> list:
    errors = _import_error_files(strict_dagbag)
    assert dag_file.resolve() not in errors, (
        f"{_rel(dag_file)} fails to import with Airflow's defaults pinned to {PINNED_DEFAULTS} (if it imports "
        "otherwise, look for a setting left to its default, e.g. catchup on a scheduled DAG without "
        f"start_date):\n{errors[dag_file.resolve()]}")
    dags = _dags_of(strict_dagbag, dag_file)
    assert dags, f"{_rel(dag_file)} defines no DAG"
    return dags


def _is_spark(task, spark_operator: type) -> bool:
    """A spark-submit task, mapped (its operator_class) or not."""
    cls = getattr(task, "operator_class", type(task))
    return isinstance(cls, type) and issubclass(cls, spark_operator)


def _convention_problems(dag) -> list[str]:
    from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator
    from airflow.serialization.encoders import coerce_to_core_timetable
    from airflow.timetables.trigger import CronTriggerTimetable

    from lakeops_airflow.dag_defaults import INGEST_PRIORITY, MAINTENANCE_PRIORITY
    from lakeops_airflow.operators import SPARK_POOL

    problems = []
    if not (dag.doc_md or "").strip():
        problems.append("doc_md is empty (use the module docstring: doc_md=__doc__)")
    if REQUIRED_TAG not in set(dag.tags or ()):
        problems.append(f"tags {sorted(dag.tags or ())} lack {REQUIRED_TAG!r}")
    default_owner = (dag.default_args or {}).get("owner")
    if not default_owner or default_owner == "airflow":
        problems.append(f"default_args owner is {default_owner!r}; set a real owner")
    for task in dag.tasks:
        if not task.owner or task.owner == "airflow":
            problems.append(f"task {task.task_id}: owner is {task.owner!r}")
        if task.retries is None or task.retries < 1:
            problems.append(f"task {task.task_id}: retries is {task.retries!r}, expected >= 1")
    for task in dag.tasks:
        if not task.retry_exponential_backoff:
            problems.append(f"task {task.task_id}: retries without backoff; set retry_exponential_backoff=True "
                            "(and max_retry_delay) in default_args")
        if _is_spark(task, SparkSubmitOperator) and task.pool != SPARK_POOL:
            problems.append(f"task {task.task_id}: a Spark task outside pool {SPARK_POOL!r} (pool={task.pool!r})")
    # The shared Spark pool serves ingest first: a queue of mapped maintenance tasks never delays a table's freshness.
    priority = INGEST_PRIORITY if "ingest" in set(dag.tags or ()) else MAINTENANCE_PRIORITY
    for task in dag.tasks:
        if _is_spark(task, SparkSubmitOperator) and task.priority_weight != priority:
            problems.append(f"task {task.task_id}: priority_weight {task.priority_weight!r} in pool {SPARK_POOL!r}, "
                            f"expected {priority} (lakeops_airflow.dag_defaults)")
    deadlines = dag.deadline or []
    if not deadlines:
        problems.append("no deadline alert; add deadline=dag_deadline(\"<kind>\") (lakeops_airflow.deadlines)")
    for alert in deadlines:
        if alert.callback.path != DEADLINE_CALLBACK:
            problems.append(f"deadline alert {alert.name!r} calls {alert.callback.path}, not {DEADLINE_CALLBACK}: "
                            "build it with lakeops_airflow.deadlines.dag_deadline so it reaches the alert channels")
    for name, _param in dag.params.items():
        schema = dag.params.get_param(name).schema
        if "type" not in schema:
            problems.append(f"param {name!r} has no JSON-schema type; declare Param(..., type=...) so manual runs are validated")
    if dag.catchup is not False:
        problems.append(f"catchup is {dag.catchup!r}; set catchup=False explicitly")
    if not (1 <= dag.max_active_runs <= MAX_ACTIVE_RUNS_LIMIT):
        problems.append(f"max_active_runs is {dag.max_active_runs}, expected 1..{MAX_ACTIVE_RUNS_LIMIT}")

    timetable = coerce_to_core_timetable(dag.timetable)  # a cron string gives an SDK timetable
    if timetable.can_be_scheduled and timetable.periodic:
        interval = timetable.infer_manual_data_interval(run_after=SAMPLE_RUN_AFTER)
        if isinstance(timetable, CronTriggerTimetable) and interval.start == interval.end:
            problems.append(
                f"schedule is a CronTriggerTimetable without interval ({timetable.summary}): start == end; "
                "use CronDataIntervalTimetable or CronTriggerTimetable(..., interval=...)")
        elif not interval.start < interval.end:
            problems.append(f"schedule {type(timetable).__name__} ({timetable.summary}) gives no data interval "
                            f"for run_after={SAMPLE_RUN_AFTER}: {interval}")
    return problems


@pytest.mark.parametrize("dag_file", DAG_FILES, ids=_ids(DAG_FILES))
def test_dags_follow_conventions(strict_dagbag, dag_file):
    problems = [f"{dag.dag_id}: {problem}"
                for dag in _strict_dags(strict_dagbag, dag_file) for problem in _convention_problems(dag)]
    assert not problems, f"{_rel(dag_file)} breaks DAG conventions:\n  " + "\n  ".join(problems)
