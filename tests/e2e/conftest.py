"""One stack per e2e module: S3Proxy, Iceberg's REST catalog on it, a Spark standalone cluster of
one master and two workers, all on loopback; the lakeops environment points at them while the
module runs (catalog kind rest, the Airflow Spark connection at the master)."""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.servers import S3_COMPAT_ENV, Processes, S3Server, SparkCluster, start_rest_catalog, start_s3proxy, start_spark_cluster

BUCKET = "lakeops"
LANDING_PREFIX = "landing"


@dataclass(frozen=True)
class Stack:
    s3: S3Server
    rest_uri: str
    spark: SparkCluster
    work_dir: Path

    @property
    def landing(self) -> str:
        return f"s3a://{BUCKET}/{LANDING_PREFIX}"

    def s3_client(self):
        import boto3

        return boto3.client("s3", endpoint_url=self.s3.endpoint, aws_access_key_id=self.s3.access_key,
                            aws_secret_access_key=self.s3.secret_key, region_name="us-east-1")


@pytest.fixture(scope="module")
def stack(tmp_path_factory, airflow_db):
    work_dir = tmp_path_factory.mktemp("e2e-stack")
    access_key, secret_key = "lakeops-e2e", secrets.token_hex(16)
    processes = Processes(work_dir)
    with pytest.MonkeyPatch.context() as patch:
        for key, value in S3_COMPAT_ENV.items():
            patch.setenv(key, value)
        try:
            s3 = start_s3proxy(processes, dict(os.environ), access_key, secret_key)
            stack_env = {"AWS_ACCESS_KEY_ID": access_key, "AWS_SECRET_ACCESS_KEY": secret_key, "AWS_REGION": "us-east-1"}
            for key, value in stack_env.items():
                patch.setenv(key, value)
            # pyarrow (zonemap files) finds the S3 server through the standard variable.
            patch.setenv("AWS_ENDPOINT_URL", s3.endpoint)
            stack = Stack(s3, "", None, work_dir)  # type: ignore[arg-type]
            stack.s3_client().create_bucket(Bucket=BUCKET)
            rest_uri = start_rest_catalog(processes, dict(os.environ), s3, f"s3://{BUCKET}/warehouse")
            # Workers hand their environment (the S3 keys) to the executors they start.
            cluster = start_spark_cluster(processes, dict(os.environ), workers=2)
            stack = Stack(s3, rest_uri, cluster, work_dir)
            patch.setenv("LAKEOPS_CATALOG_KIND", "rest")
            patch.setenv("LAKEOPS_REST_URI", rest_uri)
            patch.setenv("LAKEOPS_WAREHOUSE", f"s3://{BUCKET}/warehouse")
            patch.setenv("LAKEOPS_S3_ENDPOINT", s3.endpoint)
            patch.setenv("LAKEOPS_LANDING_DIR", stack.landing)
            patch.setenv("SPARK_LOCAL_IP", "127.0.0.1")
            patch.setenv("AIRFLOW_CONN_LAKEOPS_SPARK", json.dumps(
                {"conn_type": "spark", "host": "spark://127.0.0.1", "port": cluster.master_port,
                 "extra": {"deploy-mode": "client"}}))
            yield stack
        finally:
            processes.stop_all()
