"""The table-health page in a running Airflow api-server, seen by headless Chromium: it refuses
unauthenticated requests, and for a table this test creates it shows the table's real figures
(checked against pyiceberg's own reading). The screenshot is kept in build/test-artifacts/."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pyarrow as pa
import pytest
from pyiceberg.expressions import EqualTo

from lakeops.catalog import load_catalog
from lakeops.config import load_config
from tests.e2e.airflow_services import PROJECT_ROOT
from tests.e2e.chromium import CHROMIUM, Browser

pytestmark = [pytest.mark.airflow, pytest.mark.e2e]
ARTIFACTS = PROJECT_ROOT / "build" / "test-artifacts"


@pytest.fixture()
def health_table():
    """A table with three appends and one delete commit, in the catalog the api-server reads."""
    config = load_config()
    catalog = load_catalog(config.catalog)
    catalog.create_namespace_if_not_exists(config.catalog.namespace)
    name = f"health_e2e_{uuid.uuid4().hex[:8]}"
    table = catalog.create_table(config.identifier(name), schema=pa.schema([("id", pa.int64()), ("v", pa.string())]))
    for start, count in ((0, 20), (20, 30), (50, 40)):
        table.append(pa.table({"id": list(range(start, start + count)), "v": ["x"] * count}))
    table.delete(EqualTo("id", 5))
    table = catalog.load_table(config.identifier(name))
    files = list(table.scan().plan_files())
    yield name, {"data_files": len(files), "records": table.scan().to_arrow().num_rows,
                 "snapshots": len(table.history())}
    catalog.drop_table(config.identifier(name))


def _status(url: str, headers: dict[str, str] | None = None) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as e:
        return e.code


def test_health_page_requires_airflow_authentication(airflow_services, health_table):
    name, _ = health_table
    base = f"{airflow_services.base_url}/lakeops"
    for path in ("/health/", f"/health/{name}", f"/api/tables/{name}"):
        assert _status(base + path) == 401, path
        assert _status(base + path, {"Authorization": "Bearer not-a-token"}) in (401, 403), path
    assert _status(f"{base}/health/{name}", {"Authorization": f"Bearer {airflow_services.token()}"}) == 200


def test_health_page_in_chromium_shows_the_tables_figures(airflow_services, health_table):
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: `make test` installs Debian's chromium (apt-get install chromium)"
    name, expected = health_table
    assert expected == {"data_files": 3, "records": 89, "snapshots": 4}  # the delete rewrote the first file

    figures = airflow_services.api("GET", f"/lakeops/api/tables/{name}")
    assert figures["current"]["data_files"] == expected["data_files"]
    assert figures["current"]["records"] == expected["records"]
    assert len(figures["history"]) == expected["snapshots"]
    assert [p["data_files"] for p in figures["history"]] == [1, 2, 3, 3]
    assert figures["maintenance"][0]["operation"] in ("delete", "overwrite")
    plugins = airflow_services.api("GET", "/api/v2/plugins")["plugins"]
    views = [v for p in plugins if p["name"] == "lakeops" for v in p["external_views"]]
    assert views and views[0]["href"] == "/lakeops/health/"

    page = f"{airflow_services.base_url}/lakeops/health/{name}"
    with Browser() as browser:
        browser.open(page)
        assert "Not authenticated" in browser.evaluate("document.body.innerText")
        browser.set_cookie(airflow_services.base_url + "/", "_token", airflow_services.token())
        browser.open(page)
        title = browser.evaluate("document.querySelector('h1').innerText")
        cards = browser.evaluate(
            "Object.fromEntries([...document.querySelectorAll('#current .card')].map("
            "c => [c.querySelector('.k').innerText, c.querySelector('.v').innerText]))")
        plots = browser.evaluate("[...document.querySelectorAll('.plot')].map(p => p.dataset.series)")
        maintenance_rows = browser.evaluate("document.querySelectorAll('#maintenance tr').length")
        shot = browser.screenshot(ARTIFACTS / "table-health.png")
        browser.open(f"{airflow_services.base_url}/lakeops/health/")
        index = browser.evaluate("document.querySelector('#tables').innerText")
    print(f"\nscreenshot: {shot}\n{json.dumps(cards)}")

    assert title == f"Table health: {name}"
    assert cards["data files"] == str(expected["data_files"])
    assert cards["records"] == f"{expected['records']:,}"
    assert cards["delete files"] == "0" and cards["read amplification (files)"] == "1"
    assert cards["snapshots"] == str(expected["snapshots"])
    assert cards["small files"] == "3" and cards["read amplification (bytes)"] == "1"  # lakeops.health's figures
    assert figures["health"]["data_files"] == expected["data_files"]
    assert plots == ["data files", "delete files", "read amplification (files)", "zonemap coverage (%)"]
    assert maintenance_rows == 2  # header + the delete commit
    assert name in index and "events" in index
    assert shot.stat().st_size > 10_000
