"""Which lakeops.yaml to read: $LAKEOPS_CONFIG, else the Airflow setting `[lakeops] config_file`,
else, only when running from a source checkout, the checkout's include/lakeops.yaml.

An installed lakeops has no file of its own to fall back on: a deployment names its config in the
environment or in Airflow's configuration (airflow.cfg, AIRFLOW__LAKEOPS__CONFIG_FILE, or a
secrets backend through Airflow's `_cmd`/`_secret` forms), and the error says so when it does
neither. Airflow is imported only when $LAKEOPS_CONFIG and AIRFLOW__LAKEOPS__CONFIG_FILE are both
unset, so a Spark driver or the CLI given $LAKEOPS_CONFIG never pays for it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lakeops.exceptions import ConfigError

CONFIG_ENV = "LAKEOPS_CONFIG"
AIRFLOW_SECTION = "lakeops"
AIRFLOW_OPTION = "config_file"
AIRFLOW_ENV = f"AIRFLOW__{AIRFLOW_SECTION.upper()}__{AIRFLOW_OPTION.upper()}"


def checkout_root() -> Path | None:
    """The source checkout this library is imported from (editable install or PYTHONPATH), or None
    when lakeops is installed from a wheel: the checkout has pyproject.toml beside include/lakeops/."""
    package = Path(__file__).resolve().parent
    root = package.parent.parent
    if package.parent.name == "include" and (root / "pyproject.toml").is_file():
        return root
    return None


def _airflow_conf() -> Any | None:
    """Airflow's config parser: core's, or on a Task SDK-only worker the SDK's; None without Airflow."""
    try:
        from airflow.configuration import conf

        return conf
    except ImportError:
        pass
    try:
        from airflow.sdk.configuration import conf as sdk_conf

        return sdk_conf
    except ImportError:
        return None


def airflow_setting(environ: Mapping[str, str] | None = None) -> str | None:
    """`[lakeops] config_file` from Airflow's configuration, or None when unset or Airflow is absent.

    The environment form is read first without importing Airflow; the rest (airflow.cfg, `_cmd`,
    `_secret`) through Airflow's own config parser."""
    env = os.environ if environ is None else environ
    if env.get(AIRFLOW_ENV):
        return env[AIRFLOW_ENV]
    conf = _airflow_conf()
    if conf is None:
        return None
    value = conf.get(AIRFLOW_SECTION, AIRFLOW_OPTION, fallback=None)
    return str(value) if value else None


def resolve_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """The config file to read, in order: $LAKEOPS_CONFIG, the Airflow setting, the checkout's file.

    Raises ConfigError naming both settings when neither is set and lakeops runs from no checkout
    (or the checkout's include/lakeops.yaml is gone)."""
    env = os.environ if environ is None else environ
    if env.get(CONFIG_ENV):
        return Path(env[CONFIG_ENV]).expanduser()
    setting = airflow_setting(env)
    if setting:
        return Path(setting).expanduser()
    root = checkout_root()
    if root is not None and (root / "include" / "lakeops.yaml").is_file():
        return root / "include" / "lakeops.yaml"
    raise ConfigError(
        f"no lakeops config file: neither {CONFIG_ENV} nor the Airflow setting [{AIRFLOW_SECTION}] {AIRFLOW_OPTION} "
        f"({AIRFLOW_ENV}) is set. Set one of them to the path of your lakeops.yaml (docs/install.md)"
    )
