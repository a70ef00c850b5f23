"""Real servers for the end-to-end tests, started as processes on loopback with free ports.

* S3Proxy (org.gaul:s3proxy, filesystem backend): the S3 API over a local folder.
* Iceberg's REST catalog server (org.apache.iceberg.rest.RESTCatalogServer from the
  iceberg-open-api test fixtures), keeping table metadata and data on that S3.
* A Spark standalone cluster from pyspark's own scripts: one master, N workers.

The jars come from `make setup` (include/jvm/test-servers/pom.xml -> build/test-servers).
Every process is stopped by its own id when the test module ends.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tests.servers.processes import (  # noqa: F401  (re-exported: the e2e tests import them from here)
    PROJECT_ROOT,
    Process,
    Processes,
    free_port,
    http_json,
    port_open,
    resolved_dir,
    wait_until,
)

# S3Proxy implements neither the AWS SDKs' default request checksums nor their streaming
# trailers: ask every SDK (boto3, pyarrow, the Java SDK in S3FileIO) for checksums only where
# the API requires them. MinIO and AWS S3 do not need this.
S3_COMPAT_ENV = {"AWS_REQUEST_CHECKSUM_CALCULATION": "when_required", "AWS_RESPONSE_CHECKSUM_VALIDATION": "when_required"}


def servers_dir() -> Path:
    """build/test-servers: S3Proxy and the REST catalog server's classpath (include/jvm/test-servers/pom.xml)."""
    return resolved_dir("LAKEOPS_TEST_SERVERS_DIR", PROJECT_ROOT / "build" / "test-servers", "s3proxy-*.jar", "make setup")


@dataclass(frozen=True)
class S3Server:
    endpoint: str
    access_key: str
    secret_key: str


def start_s3proxy(processes: Processes, env: dict[str, str], access_key: str, secret_key: str) -> S3Server:
    port = free_port()
    data = processes.work_dir / "s3-data"
    data.mkdir()
    properties = processes.work_dir / "s3proxy.properties"
    properties.write_text("\n".join([
        f"s3proxy.endpoint=http://127.0.0.1:{port}",
        "s3proxy.authorization=aws-v2-or-v4",
        f"s3proxy.identity={access_key}",
        f"s3proxy.credential={secret_key}",
        "jclouds.provider=filesystem",
        f"jclouds.filesystem.basedir={data}",
    ]) + "\n")
    jar = next(servers_dir().glob("s3proxy-*-jar-with-dependencies.jar"))
    process = processes.start("s3proxy", ["java", "-Xmx256m", "-jar", str(jar), "--properties", str(properties)], env)
    wait_until(process, lambda: port_open(port))
    return S3Server(f"http://127.0.0.1:{port}", access_key, secret_key)


def start_rest_catalog(processes: Processes, env: dict[str, str], s3: S3Server, warehouse: str) -> str:
    """Iceberg's REST catalog server: a JdbcCatalog (in-memory SQLite) with S3FileIO on s3."""
    port = free_port()
    classpath = os.pathsep.join(str(p) for p in sorted(servers_dir().glob("*.jar")) if not p.name.startswith("s3proxy-"))
    server_env = {**env, "CATALOG_REST_PORT": str(port), "CATALOG_WAREHOUSE": warehouse,
                  "CATALOG_IO__IMPL": "org.apache.iceberg.aws.s3.S3FileIO", "CATALOG_S3_ENDPOINT": s3.endpoint,
                  "CATALOG_S3_PATH__STYLE__ACCESS": "true", "AWS_ACCESS_KEY_ID": s3.access_key,
                  "AWS_SECRET_ACCESS_KEY": s3.secret_key, "AWS_REGION": "us-east-1"}
    process = processes.start("iceberg-rest", ["java", "-Xmx384m", "-cp", classpath, "org.apache.iceberg.rest.RESTCatalogServer"],
                              server_env)
    uri = f"http://127.0.0.1:{port}"
    wait_until(process, lambda: "defaults" in http_json(f"{uri}/v1/config"))
    return uri


@dataclass(frozen=True)
class SparkCluster:
    master_url: str
    master_port: int
    master_ui: str
    worker_uis: tuple[str, ...]


def start_spark_cluster(processes: Processes, env: dict[str, str], workers: int = 2, worker_cores: int = 1,
                        worker_memory: str = "1g") -> SparkCluster:
    """A standalone master and its workers, from the spark-class script pyspark's package ships."""
    import pyspark

    spark_home = Path(pyspark.__file__).parent
    spark_class = str(spark_home / "bin" / "spark-class")
    base = {**env, "SPARK_HOME": str(spark_home), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(processes.work_dir)}
    port, ui_port = free_port(), free_port()
    master = processes.start("spark-master", [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                              "--port", str(port), "--webui-port", str(ui_port)], base)
    master_ui = f"http://127.0.0.1:{ui_port}"
    wait_until(master, lambda: http_json(f"{master_ui}/json").get("status") == "ALIVE")
    master_url = f"spark://127.0.0.1:{port}"
    worker_uis = []
    for i in range(workers):
        worker_ui_port = free_port()
        work_dir = processes.work_dir / f"spark-worker-{i}"
        work_dir.mkdir()
        processes.start(f"spark-worker-{i}", [spark_class, "org.apache.spark.deploy.worker.Worker", master_url,
                                              "--host", "127.0.0.1",
                                              "--cores", str(worker_cores), "--memory", worker_memory,
                                              "--webui-port", str(worker_ui_port), "--work-dir", str(work_dir)], base)
        worker_uis.append(f"http://127.0.0.1:{worker_ui_port}")
    wait_until(master, lambda: int(http_json(f"{master_ui}/json").get("aliveworkers", 0)) == workers)
    return SparkCluster(master_url, port, master_ui, tuple(worker_uis))
