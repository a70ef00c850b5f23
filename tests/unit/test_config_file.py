"""lakeops.config_file: which lakeops.yaml is read. $LAKEOPS_CONFIG, then the Airflow setting
[lakeops] config_file, then a checkout's include/lakeops.yaml; an installed lakeops with neither
setting gets an error naming both. Airflow is not imported when $LAKEOPS_CONFIG is set."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lakeops import config, config_file
from lakeops.config_file import AIRFLOW_ENV, CONFIG_ENV, checkout_root, resolve_config_path
from lakeops.exceptions import ConfigError

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def test_lakeops_config_comes_first():
    assert resolve_config_path({CONFIG_ENV: "/etc/lakeops.yaml", AIRFLOW_ENV: "/opt/other.yaml"}) == Path("/etc/lakeops.yaml")


def test_the_airflow_setting_in_the_environment_comes_next():
    assert resolve_config_path({AIRFLOW_ENV: "/opt/airflow/lakeops.yaml"}) == Path("/opt/airflow/lakeops.yaml")


def test_the_airflow_setting_from_airflows_configuration(monkeypatch):
    """airflow.cfg (or a _cmd/_secret form) is read through Airflow's parser."""
    from airflow.configuration import conf

    monkeypatch.delenv(AIRFLOW_ENV, raising=False)
    conf.set("lakeops", "config_file", "/srv/lakeops.yaml")
    try:
        assert resolve_config_path({}) == Path("/srv/lakeops.yaml")
    finally:
        conf.remove_option("lakeops", "config_file")


def test_a_checkout_falls_back_to_its_own_file(monkeypatch):
    monkeypatch.delenv(AIRFLOW_ENV, raising=False)
    assert checkout_root() == PROJECT_ROOT
    assert resolve_config_path({}) == PROJECT_ROOT / "include" / "lakeops.yaml"


def test_an_installed_package_with_neither_setting_names_both(monkeypatch):
    monkeypatch.delenv(AIRFLOW_ENV, raising=False)
    monkeypatch.setattr(config_file, "checkout_root", lambda: None)
    with pytest.raises(ConfigError) as info:
        resolve_config_path({})
    message = str(info.value)
    assert "LAKEOPS_CONFIG" in message and "[lakeops] config_file" in message and "AIRFLOW__LAKEOPS__CONFIG_FILE" in message


def test_default_config_path_uses_it(tmp_path, monkeypatch):
    monkeypatch.setenv(CONFIG_ENV, str(tmp_path / "mine.yaml"))
    assert config.default_config_path() == tmp_path / "mine.yaml"
    assert config.CONFIG_ENV == CONFIG_ENV


def test_reading_lakeops_config_imports_no_airflow():
    code = ("import sys; from lakeops.config_file import resolve_config_path; "
            "print(resolve_config_path()); print(sorted(m for m in sys.modules if m.split('.')[0] == 'airflow'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={"LAKEOPS_CONFIG": "/x/lakeops.yaml", "PATH": "/usr/bin:/bin"})
    assert done.stdout.splitlines() == ["/x/lakeops.yaml", "[]"]
