"""The table-health pages in a running Airflow api-server, seen by headless Chromium: unauthenticated requests
are refused; the index lists a table this test made unhealthy (many small files) before a healthy one; its
page has charts on a time axis and a score with its parts; pressing "compact (dry run)" starts a
compact_on_health run with the table's params, which then shows on the page linked to its DAG run; a viewer
sees no button and the action endpoint answers 403. Screenshots are kept in build/test-artifacts/."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pyarrow as pa
import pytest

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from lakeops.health.sweep import sweep
from tests.e2e.airflow_services import PROJECT_ROOT, VIEWER_USER
from tests.e2e.chromium import CHROMIUM, Browser
from tests.e2e.conftest import DISCOVERED_NAMESPACE, NEVER_CREATED

pytestmark = [pytest.mark.airflow, pytest.mark.e2e]
ARTIFACTS = PROJECT_ROOT / "build" / "test-artifacts"
COMPACT_DAG = "compact_on_health"


@pytest.fixture(scope="module")
def health_tables(airflow_services):
    """Two tables the session's Airflow discovers, both scored by a health sweep: `bad` of 14 appends of small files
    (target 1 MiB through Iceberg's own write.target-file-size-bytes), `good` of one file."""
    config = load_config(airflow_services.env["LAKEOPS_CONFIG"])
    catalog = load_catalog(config.catalog)
    catalog.create_namespace_if_not_exists(DISCOVERED_NAMESPACE)
    suffix = uuid.uuid4().hex[:8]
    bad, good = f"{DISCOVERED_NAMESPACE}.ui_bad_{suffix}", f"{DISCOVERED_NAMESPACE}.ui_good_{suffix}"
    schema = pa.schema([("id", pa.int64()), ("v", pa.string())])
    table = catalog.create_table(bad, schema=schema, properties={"write.target-file-size-bytes": "65536"})
    for i in range(14):
        table.append(pa.table({"id": [hash((suffix, i, k)) for k in range(10_000)], "v": ["x"] * 10_000}))
    catalog.create_table(good, schema=schema).append(pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"]}))
    result = sweep(config, catalog, [bad, good])
    assert sorted(result.evaluated) == sorted([bad, good]), result
    files = len(list(catalog.load_table(bad).scan().plan_files()))  # pyiceberg splits each append at the 64 KiB target
    assert files >= 14
    yield bad, good, files
    for name in (bad, good):
        catalog.drop_table(name)


def _status(url: str, method: str = "GET", headers: dict[str, str] | None = None) -> int:
    request = urllib.request.Request(url, method=method, headers=headers or {}, data=b"" if method == "POST" else None)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as e:
        return e.code


def _wait(browser: Browser, expression: str, timeout: float = 60) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = browser.evaluate(expression)
        if value:
            return value
        time.sleep(0.5)
    raise TimeoutError(f"{expression} stayed false for {timeout:.0f} s: {browser.evaluate('document.body.innerText')[:2000]}")


def _dag_loaded(services, dag_id: str) -> bool:
    try:
        services.api("GET", f"/api/v2/dags/{dag_id}")
        return True
    except urllib.error.HTTPError:
        return False


def test_pages_require_airflow_authentication(airflow_services, health_tables):
    bad, _, _ = health_tables
    base = f"{airflow_services.base_url}/lakeops"
    for path in ("/health/", f"/health/{bad}", f"/api/tables/{bad}"):
        assert _status(base + path) == 401, path
        assert _status(base + path, headers={"Authorization": "Bearer not-a-token"}) in (401, 403), path
    assert _status(f"{base}/api/tables/{bad}/actions/compact_dry_run", "POST") == 401
    assert _status(f"{base}/health/{bad}", headers={"Authorization": f"Bearer {airflow_services.token()}"}) == 200


def test_index_worst_first_table_page_and_compact_dry_run_in_chromium(airflow_services, health_tables):
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: `make test` installs Debian's chromium (apt-get install chromium)"
    bad, good, files = health_tables
    airflow_services.wait_for(lambda: _dag_loaded(airflow_services, COMPACT_DAG), 180,
                              f"the dag-processor to load {COMPACT_DAG}")
    figures = airflow_services.api("GET", f"/lakeops/api/tables/{bad}")
    assert figures["score"]["worst"] == "small_files" and figures["inputs"]["data_files"] == files
    assert len(figures["history"]) == 1 and figures["policy"]["compaction.target_file_size_mb"]["origin"] == "table property"

    base = airflow_services.base_url
    with Browser() as browser:
        browser.set_cookie(base + "/", "_token", airflow_services.token())
        started = time.perf_counter()
        browser.open(f"{base}/lakeops/health/")
        index_s = time.perf_counter() - started
        order = browser.evaluate("[...document.querySelectorAll('#tables tr[data-table]')].map(r => r.dataset.table)")
        rows = browser.evaluate("Object.fromEntries([...document.querySelectorAll('#tables tr[data-table]')].map("
                                "r => [r.dataset.table, [r.dataset.status, r.dataset.score,"
                                " r.cells[2] && r.cells[2].innerText]]))")
        browser.screenshot(ARTIFACTS / "table-health-index.png")

        browser.open(f"{base}/lakeops/health/{bad}")
        title = browser.evaluate("document.querySelector('h1').innerText")
        score = int(browser.evaluate("document.querySelector('#score').innerText"))
        parts = browser.evaluate("[...document.querySelectorAll('#parts tr[data-part]')].map(r => r.dataset.part)")
        charts = browser.evaluate("[...document.querySelectorAll('.chart')].map(c => c.dataset.series)")
        ticks = browser.evaluate("[...document.querySelectorAll('.chart')][0].querySelectorAll('.tick').length")
        window = browser.evaluate("(s => [+s.dataset.start, +s.dataset.end])(document.querySelector('.chart svg'))")
        browser.evaluate("document.querySelector(\"#actions button[data-action='compact_dry_run']\").click()")
        run_href = _wait(browser, "document.querySelector('#started-run') && document.querySelector('#started-run').href")
        run_id = str(_wait(browser, "document.querySelector('#started-run').innerText")).split(" ", 1)[1]

        browser.open(f"{base}/lakeops/health/{bad}")
        run_link = browser.evaluate("(r => r && r.querySelector('a.run-link').href)"
                                    f"(document.querySelector(\"#runs tr[data-run='{run_id}']\"))")
        marker = browser.evaluate(f"!!document.querySelector(\".chart a.run-marker[data-run='{run_id}']\")")
        shot = browser.screenshot(ARTIFACTS / "table-health.png")

        browser.set_cookie(base + "/", "_token", airflow_services.token(VIEWER_USER))
        browser.open(f"{base}/lakeops/health/{bad}")
        viewer_buttons = browser.evaluate("document.querySelectorAll('#actions button').length")
        viewer_text = browser.evaluate("document.querySelector('#actions').innerText")
        viewer_runs = browser.evaluate("document.querySelectorAll('#runs tr[data-run]').length")
        browser.screenshot(ARTIFACTS / "table-health-viewer.png")
    print(f"\nindex loaded in Chromium in {index_s:.2f} s; screenshots in {ARTIFACTS}\n{json.dumps(rows)[:1500]}")

    assert order.index(bad) < order.index(good), order
    assert rows[bad][0] == "ok" and int(rows[bad][1]) < int(rows[good][1]) == 100 and "small files" in rows[bad][2]
    not_created = [t for t, (status, _, _) in rows.items() if status == "not created yet"]
    assert NEVER_CREATED in not_created and order[-len(not_created):] == sorted(not_created)

    assert title == f"Table health: {bad}" and score == figures["score"]["score"] < 100
    assert parts == ["small_files", "equality_deletes", "position_deletes", "read_amplification", "freshness",
                     "zonemap_coverage", "zonemap_pruning"]
    assert charts[:5] == ["score", "data files", "delete files", "read amplification (files)", "freshness lag (min)"]
    assert ticks >= 2 and window[1] - window[0] >= 10 * 60_000

    run = airflow_services.api("GET", f"/api/v2/dags/{COMPACT_DAG}/dagRuns/{urllib.request.quote(run_id, safe='')}")
    assert run["conf"] == {"tables": [bad], "dry_run": True} and run["run_type"] == "manual"
    assert run_href.endswith(f"/dags/{COMPACT_DAG}/runs/{urllib.request.quote(run_id, safe='')}")
    assert run_link == run_href and marker

    assert viewer_buttons == 0 and "cannot trigger" in viewer_text and viewer_runs == 1
    viewer = {"Authorization": f"Bearer {airflow_services.token(VIEWER_USER)}"}
    assert _status(f"{base}/lakeops/api/tables/{bad}/actions/compact_dry_run", "POST", viewer) == 403
    assert _status(f"{base}/lakeops/health/{bad}", headers=viewer) == 200
    assert shot.stat().st_size > 10_000
