"""Real servers for the end-to-end tests, started as processes on loopback with free ports.

* S3Proxy (org.gaul:s3proxy, filesystem backend): the S3 API over a local folder.
* Iceberg's REST catalog server (org.apache.iceberg.rest.RESTCatalogServer from the
  iceberg-open-api test fixtures), keeping table metadata and data on that S3.
* A Spark standalone cluster from pyspark's own scripts: one master, N workers.

The jars come from `make setup` (include/jvm/test-servers/pom.xml -> build/test-servers).
Every process is stopped by its own id when the test module ends.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]
# S3Proxy implements neither the AWS SDKs' default request checksums nor their streaming
# trailers: ask every SDK (boto3, pyarrow, the Java SDK in S3FileIO) for checksums only where
# the API requires them. MinIO and AWS S3 do not need this.
S3_COMPAT_ENV = {"AWS_REQUEST_CHECKSUM_CALCULATION": "when_required", "AWS_RESPONSE_CHECKSUM_VALIDATION": "when_required"}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def servers_dir() -> Path:
    directory = Path(os.environ.get("LAKEOPS_TEST_SERVERS_DIR") or PROJECT_ROOT / "build" / "test-servers")
    if not (directory / ".resolved").exists() and not list(directory.glob("s3proxy-*.jar")):
        raise RuntimeError(f"the test servers are not in {directory}; run `make setup` (include/jvm/test-servers/pom.xml)")
    return directory


@dataclass
class Process:
    name: str
    popen: subprocess.Popen
    log: Path

    def tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=10)


@dataclass
class Processes:
    """Processes started by one test module, stopped in reverse order."""
    work_dir: Path
    started: list[Process] = field(default_factory=list)

    def start(self, name: str, command: list[str], env: dict[str, str]) -> Process:
        log = self.work_dir / f"{name}.log"
        with open(log, "wb") as out:
            popen = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=self.work_dir)
        process = Process(name, popen, log)
        self.started.append(process)
        return process

    def stop_all(self) -> None:
        for process in reversed(self.started):
            process.stop()


def wait_until(process: Process, ready: Callable[[], bool], timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.popen.poll() is not None:
            raise RuntimeError(f"{process.name} exited with {process.popen.returncode}:\n{process.tail()}")
        try:
            if ready():
                return
        except (OSError, urllib.error.URLError, ValueError):
            pass
        time.sleep(0.5)
    raise RuntimeError(f"{process.name} was not ready after {timeout:.0f} s:\n{process.tail()}")


def http_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


def port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


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
