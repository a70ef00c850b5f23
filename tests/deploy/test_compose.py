"""docker-compose.yaml against the Compose specification, without a Docker engine.

Two validators from Debian's docker-compose package (installed by `make setup`): its
`docker-compose config`, which interpolates every variable, validates the result against its
bundled Compose JSON schema and resolves services, volumes and depends_on; and that same
compose_spec.json applied with jsonschema to the file as written. Then checks of our own on the
resolved file: pinned image tags, wiring between services, the Airflow connection and the lakeops
configuration the containers would load.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

PROJECT_ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = PROJECT_ROOT / "docker-compose.yaml"
ENV_EXAMPLE = PROJECT_ROOT / ".env.example"
SCHEMA = Path("/usr/lib/python3/dist-packages/compose/config/compose_spec.json")
AIRFLOW_COMPONENTS = {"airflow-apiserver", "airflow-scheduler", "airflow-dag-processor", "airflow-triggerer", "airflow-worker"}
SERVICES = AIRFLOW_COMPONENTS | {"airflow-init", "postgres", "redis", "spark-master", "spark-worker", "minio", "minio-init",
                                 "iceberg-rest"}
SECRETS = ("POSTGRES_PASSWORD", "REDIS_PASSWORD", "MINIO_ROOT_USER", "MINIO_ROOT_PASSWORD", "AIRFLOW_JWT_SECRET",
           "AIRFLOW_API_SECRET_KEY", "AIRFLOW_FERNET_KEY", "AIRFLOW_ADMIN_PASSWORD")


def _compose(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    binary = shutil.which("docker-compose")
    if binary is None:
        pytest.fail("docker-compose is not installed; `make setup` installs Debian's package (apt-get install docker-compose)")
    return subprocess.run([binary, "-f", str(COMPOSE_FILE), "--project-directory", str(PROJECT_ROOT), *args],
                          capture_output=True, text=True, env=env, timeout=60)


def _clean_env() -> dict[str, str]:
    """No secret from the developer's shell may make the file resolve."""
    return {k: v for k, v in os.environ.items() if k not in SECRETS}


@pytest.fixture(scope="module")
def resolved() -> dict:
    done = _compose("--env-file", str(ENV_EXAMPLE), "config", env=_clean_env())
    assert done.returncode == 0, f"docker-compose config rejected the file:\n{done.stderr}"
    return yaml.safe_load(done.stdout)


def _mount(volume: dict | str) -> tuple[str, str]:
    """(source, target) of a volume in the long or the short syntax (docker-compose 1.x prints the short one)."""
    if isinstance(volume, dict):
        return str(volume.get("source", "")), str(volume["target"])
    source, target = volume.split(":")[:2]
    return source, target


def _env(service: dict) -> dict[str, str]:
    return {k: "" if v is None else str(v) for k, v in (service.get("environment") or {}).items()}


def test_every_service_is_present_and_every_variable_resolves(resolved):
    assert set(resolved["services"]) == SERVICES
    text = yaml.safe_dump(resolved)
    assert "${" not in text, "an unresolved ${VAR} is left in the resolved file"
    for name, service in resolved["services"].items():
        for key, value in _env(service).items():
            assert value != "", f"{name}: environment variable {key} resolves to nothing"


def test_images_are_pinned_and_builds_exist(resolved):
    for name, service in resolved["services"].items():
        image = service.get("image")
        assert image, f"{name} has no image"
        repository, _, tag = image.rpartition(":")
        assert repository and tag and tag != "latest" and "/" not in tag, f"{name}: image {image!r} has no pinned tag"
        if "build" in service:
            context = Path(service["build"]["context"])
            assert (context / service["build"]["dockerfile"]).is_file(), f"{name}: Dockerfile missing"
            assert (context / "requirements.lock").is_file()


def test_ports_volumes_and_dependencies_resolve(resolved):
    services, declared = resolved["services"], set(resolved.get("volumes") or {})
    host_ports = []
    for name, service in services.items():
        for port in service.get("ports") or []:
            published = int(port["published"]) if isinstance(port, dict) else int(str(port).split(":")[0])
            target = int(port["target"]) if isinstance(port, dict) else int(str(port).split(":")[1])
            assert 0 < published < 65536 and 0 < target < 65536
            host_ports.append(published)
        for volume in service.get("volumes") or []:
            source, _ = _mount(volume)
            if not source.startswith(("/", ".")):
                assert source in declared, f"{name}: volume {source!r} is not declared under volumes:"
        for target in service.get("depends_on") or {}:
            assert target in services, f"{name} depends on {target!r}, which is not a service"
    assert len(host_ports) == len(set(host_ports)), f"a host port is published twice: {sorted(host_ports)}"


def test_airflow_components_share_one_configuration(resolved):
    services = resolved["services"]
    shared = ("AIRFLOW__CORE__EXECUTOR", "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", "AIRFLOW__CELERY__BROKER_URL",
              "AIRFLOW__API_AUTH__JWT_SECRET", "AIRFLOW__CORE__FERNET_KEY", "AIRFLOW_CONN_LAKEOPS_SPARK")
    first = _env(services["airflow-worker"])
    assert first["AIRFLOW__CORE__EXECUTOR"] == "CeleryExecutor"
    for name in AIRFLOW_COMPONENTS | {"airflow-init"}:
        env = _env(services[name])
        for key in shared:
            assert env.get(key) == first[key], f"{name}: {key} differs from the worker's"
    assert "@postgres:5432/" in first["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"]
    assert first["AIRFLOW__CELERY__BROKER_URL"].endswith("@redis:6379/0")
    assert first["AIRFLOW__CORE__EXECUTION_API_SERVER_URL"].startswith("http://airflow-apiserver:8080/")


def test_spark_connection_points_at_the_master_service(resolved):
    services = resolved["services"]
    conn = json.loads(_env(services["airflow-worker"])["AIRFLOW_CONN_LAKEOPS_SPARK"])
    assert conn["conn_type"] == "spark"
    master_command = services["spark-master"]["command"]
    assert conn["host"] == f"spark://{services['spark-master']['hostname']}"
    assert str(conn["port"]) == master_command[master_command.index("--port") + 1]
    assert f"{conn['host']}:{conn['port']}" in services["spark-worker"]["command"]


def test_lakeops_config_loads_in_the_containers_environment(resolved, monkeypatch):
    """The containers' LAKEOPS_*/AWS_* give a REST catalog on MinIO, for Spark and pyiceberg alike."""
    from lakeops.catalog import pyiceberg_catalog_props, spark_catalog_conf
    from lakeops.config import load_config

    services = resolved["services"]
    env = _env(services["airflow-worker"])
    for key, value in env.items():
        if key.startswith(("LAKEOPS_", "AWS_")):
            monkeypatch.setenv(key, value)
    config = load_config(PROJECT_ROOT / "include" / "lakeops.yaml")
    assert config.catalog.kind == "rest"
    rest_port = services["iceberg-rest"]["ports"][0]["target"]
    assert config.catalog.uri == f"http://iceberg-rest:{rest_port}"
    assert config.catalog.warehouse == services["iceberg-rest"]["environment"]["CATALOG_WAREHOUSE"]
    assert config.catalog.s3_endpoint == services["iceberg-rest"]["environment"]["CATALOG_S3_ENDPOINT"]
    assert config.landing_root == env["LAKEOPS_LANDING_DIR"]
    # The landing zone and the warehouse share the bucket minio-init creates.
    bucket = config.catalog.warehouse.split("://", 1)[1].split("/", 1)[0]
    assert config.landing_root.startswith(f"s3a://{bucket}/")
    assert f"lake/{bucket}" in " ".join(services["minio-init"]["command"])
    spark = spark_catalog_conf(config.catalog)
    assert spark["spark.sql.catalog.lakeops.uri"] == config.catalog.uri
    assert spark["spark.sql.catalog.lakeops.s3.endpoint"] == "http://minio:9000"
    from lakeops.spark.session import session_conf

    assert session_conf(config)["spark.hadoop.fs.s3a.endpoint"] == "http://minio:9000"
    props = pyiceberg_catalog_props(config.catalog, env)
    assert props["s3.access-key-id"] == _env(services["minio"])["MINIO_ROOT_USER"]
    # Executors get the same keys from the Spark worker's environment.
    worker = _env(services["spark-worker"])
    assert worker["AWS_ACCESS_KEY_ID"] == env["AWS_ACCESS_KEY_ID"] and worker["LAKEOPS_LANDING_DIR"] == env["LAKEOPS_LANDING_DIR"]


def test_a_missing_secret_is_refused_by_name():
    done = _compose("config", env=_clean_env())
    assert done.returncode != 0
    assert "set POSTGRES_PASSWORD in .env" in done.stderr or "in .env (copy .env.example)" in done.stderr


def test_the_file_as_written_matches_the_compose_schema():
    import jsonschema

    if not SCHEMA.is_file():
        pytest.fail(f"{SCHEMA} is missing; `make setup` installs Debian's docker-compose package, which ships it")
    schema = json.loads(SCHEMA.read_text())
    validator = jsonschema.validators.validator_for(schema)(schema)
    document = yaml.safe_load(COMPOSE_FILE.read_text())
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]
    assert errors == []
    # The schema is strict: a misspelt key is caught.
    document["services"]["redis"]["imgae"] = "redis:7"
    assert any("imgae" in e.message for e in validator.iter_errors(document))


def _dockerfile(path: Path) -> list[list[tuple[str, str]]]:
    """The Dockerfile's instructions, (KEYWORD, arguments) with continuation lines joined, per stage."""
    text = path.read_text().replace("\\\n", " ")
    stages: list[list[tuple[str, str]]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keyword, _, rest = line.partition(" ")
        if keyword.upper() == "FROM":
            stages.append([])
        stages[-1].append((keyword.upper(), " ".join(rest.split())))
    return stages


def _copies(stage: list[tuple[str, str]]) -> dict[str, str]:
    """COPY destination -> source (with --from=<stage>: prefix when it copies from another stage)."""
    out = {}
    for keyword, args in stage:
        if keyword == "COPY":
            words = args.split()
            flags = [w for w in words if w.startswith("--")]
            paths = [w for w in words if not w.startswith("--")]
            origin = next((f.split("=", 1)[1] + ":" for f in flags if f.startswith("--from=")), "")
            for source in paths[:-1]:
                out[paths[-1] if len(paths) == 2 else f"{paths[-1]}/{source}"] = origin + source
    return out


def test_the_image_installs_the_wheel_and_airflow_finds_lakeops_through_it(resolved):
    """The production image installs lakeops from its wheel (dependencies pinned by the lock), never
    an editable checkout; the Airflow components use no plugins folder, and their DAGs folder,
    config file and jars are where the Dockerfile puts them."""
    service = resolved["services"]["airflow-worker"]
    build = service["build"]
    dockerfile = Path(build["context"]) / build["dockerfile"]
    stages = _dockerfile(dockerfile)
    assert len(stages) == 2, "a build stage (wheel and jars) and the Airflow image"
    runs = " ".join(args for stage in stages for keyword, args in stage if keyword == "RUN")
    assert "-e " not in runs and "--editable" not in runs, "the image must not install an editable checkout"
    assert "pip wheel" in runs and "--no-deps" in runs
    build_stage, image = stages
    assert image[0][1].startswith("apache/airflow:3.3.2-python3.11")
    installs = [args for keyword, args in image if keyword == "RUN" and "pip install" in args]
    assert installs and all("lakeops-" in args and ".whl" in args and "-c /tmp/requirements.lock" in args for args in installs)
    copies = _copies(image)
    assert copies["/tmp/requirements.lock"] == "requirements.lock"
    assert not any(source.endswith(("plugins", "spark_jobs", ".")) for source in copies.values()), copies
    assert "lakeops-jars /jars" in " ".join(args for keyword, args in build_stage if keyword == "RUN")
    for name in AIRFLOW_COMPONENTS | {"airflow-init"}:
        env = _env(resolved["services"][name])
        assert "AIRFLOW__CORE__PLUGINS_FOLDER" not in env, f"{name}: the plugin comes from the package's entry point"
        assert copies[env["AIRFLOW__CORE__DAGS_FOLDER"]] == "dags"
        assert copies[env["AIRFLOW__LAKEOPS__CONFIG_FILE"]] == "include/lakeops.yaml"
        assert copies[env["LAKEOPS_JARS_DIR"]].endswith(":/jars")
    for source in [*copies.values(), *_copies(build_stage).values()]:
        if ":" not in source:
            assert (Path(build["context"]) / source).exists(), f"COPY {source}: not in the build context"
