"""A REST catalog with OAuth2 and vended credentials, reached by both clients from one catalog block.

Real servers on loopback: S3Proxy, Iceberg's REST catalog server handing out the S3 keys per table
(include-credentials, as Polaris or Lakekeeper vend them), and a recording proxy in front of it. The
client secret sits in an Airflow connection (AIRFLOW_CONN_*), read when the catalog is used; neither
this process nor the Spark job has any AWS key: every byte on S3, Iceberg's and lakeops' own files
(zonemaps, in-flight markers, staging), is written with the table's vended credentials.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import subprocess
import sys
import textwrap
from dataclasses import asdict

import pyarrow as pa
import pytest

from tests.e2e.recording_proxy import start_recording_proxy
from tests.e2e.servers import S3_COMPAT_ENV, Processes, start_rest_catalog, start_s3proxy

pytestmark = [pytest.mark.e2e, pytest.mark.spark]

BUCKET = "vended"
CLIENT_ID, CLIENT_SECRET = "lakeops-client", f"client-secret-{secrets.token_hex(8)}"
TOKEN = f"client-credentials-token:sub={CLIENT_ID}"
AWS_VARS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_PROFILE")


@pytest.fixture(scope="module")
def rest(tmp_path_factory):
    """S3Proxy, the REST catalog server vending its S3 keys, a recording proxy; the connection in the environment."""
    import boto3

    processes = Processes(tmp_path_factory.mktemp("rest-vended"))
    access_key, secret_key = "vended-e2e", secrets.token_hex(16)
    with pytest.MonkeyPatch.context() as patch:
        for key, value in S3_COMPAT_ENV.items():
            patch.setenv(key, value)
        for key in AWS_VARS:
            patch.delenv(key, raising=False)
        connection = {"conn_type": "generic", "login": CLIENT_ID, "password": CLIENT_SECRET}
        patch.setenv("AIRFLOW_CONN_REST_CATALOG", json.dumps(connection))
        try:
            s3 = start_s3proxy(processes, dict(os.environ), access_key, secret_key)
            client = boto3.client("s3", endpoint_url=s3.endpoint, aws_access_key_id=access_key, aws_secret_access_key=secret_key,
                                  region_name="us-east-1")
            client.create_bucket(Bucket=BUCKET)
            server = start_rest_catalog(processes, dict(os.environ), s3, f"s3://{BUCKET}/warehouse", vend_credentials=True)
            proxy = start_recording_proxy(server)
            try:
                yield proxy, s3, client
            finally:
                proxy.stop()
        finally:
            processes.stop_all()


def _catalog_config(proxy, s3):
    from lakeops.catalogs.config import CatalogConfig

    return CatalogConfig(kind="rest", name="vended", namespace="e2e", uri=proxy.url, warehouse=f"s3://{BUCKET}/warehouse",
                         s3_endpoint=s3.endpoint, auth="oauth2", oauth2_server_uri=f"{proxy.url}/v1/oauth/tokens",
                         scope="catalog", conn_id="rest_catalog")


def _objects(client, prefix: str) -> list[str]:
    listed = client.list_objects_v2(Bucket=BUCKET, Prefix=prefix).get("Contents", [])
    return [o["Key"] for o in listed if not o["Key"].endswith("/")]


def test_pyiceberg_authenticates_with_the_connection_and_writes_with_vended_credentials(rest, caplog, capfd):
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField, StringType

    from lakeops.catalog import load_catalog, pyiceberg_catalog_props
    from lakeops.inflight import inflight, read_markers
    from lakeops.staging import store
    from lakeops.zonemap.store import SCHEMA, publish, read_files, zonemap_root

    proxy, s3, client = rest
    config = _catalog_config(proxy, s3)
    assert not any(k in pyiceberg_catalog_props(config) for k in ("s3.access-key-id", "s3.secret-access-key"))
    with caplog.at_level(logging.DEBUG):
        catalog = load_catalog(config)
        catalog.create_namespace_if_not_exists("e2e")
        table = catalog.create_table("e2e.vended", Schema(NestedField(1, "id", LongType(), required=False),
                                                          NestedField(2, "name", StringType(), required=False)))
        table.append(pa.table({"id": pa.array([1, 2], pa.int64()), "name": ["a", "b"]}))
        table = catalog.load_table("e2e.vended")
    assert table.io.properties["s3.access-key-id"] == "vended-e2e"  # from the catalog, per table
    assert sorted(table.scan().to_arrow().column("id").to_pylist()) == [1, 2]

    # lakeops' own files beside the table, through the table's FileIO and its vended keys
    root = zonemap_root(table.location())
    publish(f"{root}/micro/{table.current_snapshot().snapshot_id}.parquet", pa.Table.from_pylist([], schema=SCHEMA))
    assert read_files([f"{root}/micro/{table.current_snapshot().snapshot_id}.parquet"]) == ([], [])
    with inflight(table.location(), "compaction", "run-1", table.current_snapshot().snapshot_id):
        assert len(read_markers(table.location())) == 1
    store.publish_text(f"{table.location()}/_staging/k/w000.manifest.json", "{}")
    assert store.read_text(f"{table.location()}/_staging/k/w000.manifest.json") == "{}"
    prefix = table.location().removeprefix(f"s3://{BUCKET}/")
    assert _objects(client, f"{prefix}/_zonemaps/micro/") and _objects(client, f"{prefix}/_staging/k/")
    assert _objects(client, f"{prefix}/data/") and not _objects(client, f"{prefix}/_lakeops/inflight/")

    # OAuth2 client credentials from the connection, then the token and the delegation header on every call
    sent = proxy.by_client("PyIceberg")
    token_requests = [r for r in sent if r.path.endswith("/v1/oauth/tokens")]
    assert token_requests and token_requests[0].form == {"grant_type": "client_credentials", "client_id": CLIENT_ID,
                                                         "client_secret": CLIENT_SECRET, "scope": "catalog"}
    calls = [r for r in sent if "/namespaces" in r.path]
    assert calls and all(r.headers.get("authorization") == f"Bearer {TOKEN}" for r in calls)
    assert all(r.headers.get("x-iceberg-access-delegation") == "vended-credentials" for r in calls)
    # the log (through logging, or Airflow's structlog once Airflow read the connection) holds no secret
    captured = capfd.readouterr()
    logged = caplog.text + captured.out + captured.err
    assert CLIENT_SECRET not in logged
    assert "'credential': '***'" in logged


SPARK_JOB = textwrap.dedent("""
    import json, sys, urllib.request
    from pyspark.sql import SparkSession
    from lakeops.catalog import spark_catalog_conf, spark_s3_conf, spark_session_settings
    from lakeops.catalogs.config import CatalogConfig
    from lakeops.runtime import spark_jars

    config = CatalogConfig(**json.loads(sys.argv[1]))
    builder = SparkSession.builder.master("local[1]").appName("lakeops rest e2e")
    settings = {**spark_session_settings(), **spark_catalog_conf(config), **spark_s3_conf(config),
                "spark.jars": ",".join(spark_jars()), "spark.ui.port": "0", "spark.sql.session.timeZone": "UTC"}
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    table = "vended.e2e.vended"
    before = sorted(r.id for r in spark.table(table).collect())
    spark.sql(f"INSERT INTO {table} VALUES (3, 'from spark')")
    app = spark.sparkContext.applicationId
    with urllib.request.urlopen(f"{spark.sparkContext.uiWebUrl}/api/v1/applications/{app}/environment") as response:
        shown = dict(json.loads(response.read())["sparkProperties"])
    print(json.dumps({"before": before, "credential_shown": shown.get("spark.sql.catalog.vended.credential")}))
    spark.stop()
""")


def test_spark_authenticates_with_the_secret_handed_over_and_writes_with_vended_credentials(rest, tmp_path):
    from lakeops.catalog import load_catalog, secret_environment

    proxy, s3, client = rest
    config = _catalog_config(proxy, s3)
    handed = secret_environment(config)  # what the Spark operator puts in spark-submit's environment
    assert handed == {"LAKEOPS_CATALOG_CREDENTIAL": f"{CLIENT_ID}:{CLIENT_SECRET}"}
    env = {k: v for k, v in os.environ.items() if k not in AWS_VARS and not k.startswith("AIRFLOW_CONN_")}
    script = tmp_path / "job.py"
    script.write_text(SPARK_JOB)
    done = subprocess.run([sys.executable, str(script), json.dumps(asdict(config))], capture_output=True, text=True,
                          timeout=600, env={**env, **handed, "SPARK_LOCAL_IP": "127.0.0.1"})
    assert done.returncode == 0, done.stderr[-4000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["before"] == [1, 2]
    assert out["credential_shown"] == "*********(redacted)"
    assert CLIENT_SECRET not in done.stdout + done.stderr

    sent = proxy.by_client("Apache Iceberg")
    token_requests = [r for r in sent if r.path.endswith("/v1/oauth/tokens")]
    assert token_requests and token_requests[0].form.get("grant_type") == "client_credentials"
    assert token_requests[0].form.get("scope") == "catalog"
    calls = [r for r in sent if "/namespaces/" in r.path]
    assert calls and all(r.headers.get("authorization") == f"Bearer {TOKEN}" for r in calls)
    assert all(r.headers.get("x-iceberg-access-delegation") == "vended-credentials" for r in calls)

    table = load_catalog(config).load_table("e2e.vended")
    assert sorted(table.scan().to_arrow().column("id").to_pylist()) == [1, 2, 3]
