"""Catalog secrets with real components: an Airflow connection read through Airflow's own lookup when
the catalog is used, Airflow's log masker told about them, and a catalog server whose error quotes the
secret it received: the secret reaches neither the log nor the error lakeops raises."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from lakeops.catalog import load_catalog
from lakeops.catalogs.config import CatalogConfig
from lakeops.exceptions import CatalogError

SECRET = "s3cr3t-from-the-connection"


def _run(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env={**os.environ, **env})


def test_an_airflow_connection_is_read_when_the_catalog_is_used_and_masked():
    code = ("import json\n"
            "from lakeops.catalogs.config import CatalogConfig\n"
            "from lakeops.catalogs.secrets import resolve\n"
            "c = CatalogConfig(kind='rest', uri='http://r', warehouse='w', auth='oauth2', conn_id='polaris')\n"
            "s = resolve(c, env={})\n"
            "from airflow.sdk._shared.secrets_masker import redact\n"
            "print(json.dumps({'credential': s.credential, 'masked': redact('credential is ' + s.credential)}))\n")
    connection = json.dumps({"conn_type": "generic", "login": "client-id", "password": SECRET})
    done = _run(code, {"AIRFLOW_CONN_POLARIS": connection})
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["credential"] == f"client-id:{SECRET}"
    assert SECRET not in out["masked"]  # the combined id:secret is masked too


def test_an_unknown_connection_is_a_config_error_naming_it():
    code = ("from lakeops.catalogs.config import CatalogConfig\n"
            "from lakeops.catalogs.secrets import resolve\n"
            "from lakeops.exceptions import ConfigError\n"
            "c = CatalogConfig(kind='rest', uri='http://r', warehouse='w', auth='token', conn_id='no_such_conn')\n"
            "try:\n    resolve(c, env={})\nexcept ConfigError as e:\n    print(e)\n")
    done = _run(code, {})
    assert done.returncode == 0, done.stderr
    assert "catalog.conn_id: Airflow connection 'no_such_conn' cannot be read" in done.stdout


@pytest.fixture
def echoing_catalog():
    """A REST catalog endpoint whose token endpoint refuses the client and quotes the request it got."""

    class Handler(BaseHTTPRequestHandler):
        def _reply(self, status: int, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._reply(200, {"defaults": {}, "overrides": {}})

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
            self._reply(401, {"error": "invalid_client", "error_description": f"refused request {body}"})

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_secret_quoted_by_the_server_reaches_neither_the_log_nor_the_error(echoing_catalog, monkeypatch, caplog):
    monkeypatch.setenv("LAKEOPS_CATALOG_CREDENTIAL", f"client-id:{SECRET}")
    config = CatalogConfig(kind="rest", uri=echoing_catalog, warehouse="prod", auth="oauth2",
                           oauth2_server_uri=f"{echoing_catalog}/v1/oauth/tokens")
    with caplog.at_level(logging.DEBUG, logger="lakeops"), pytest.raises(CatalogError) as info:
        load_catalog(config)
    message = str(info.value)
    assert "invalid_client" in message and "***" in message  # the server's answer, redacted
    assert SECRET not in message
    assert SECRET not in "".join(traceback.format_exception(info.value))  # no chained original either
    assert SECRET not in caplog.text
    assert "'credential': '***'" in caplog.text


def test_catalog_settings_logged_by_load_catalog_are_masked(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("LAKEOPS_CATALOG_PASSWORD", SECRET)
    monkeypatch.setenv("LAKEOPS_CATALOG_USER", "iceberg")
    config = CatalogConfig(kind="sql", uri="postgresql://127.0.0.1:1/iceberg", warehouse=(tmp_path / "wh").as_uri())
    with caplog.at_level(logging.INFO, logger="lakeops"), pytest.raises(CatalogError) as info:
        load_catalog(config)  # nothing listens on port 1: SQLAlchemy's error names the URL
    assert "postgresql+psycopg2://iceberg:***@127.0.0.1:1/iceberg" in caplog.text
    assert SECRET not in caplog.text and SECRET not in str(info.value)
