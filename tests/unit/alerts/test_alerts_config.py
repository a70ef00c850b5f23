"""The config's `alerts` section: deadline minutes per DAG kind, validated, and readable alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakeops.config import AlertsConfig, load_alerts_config, parse_config
from lakeops.exceptions import ConfigError

SHIPPED = Path(__file__).resolve().parents[3] / "include" / "lakeops.yaml"


def test_shipped_config_sets_deadlines_per_dag_kind():
    alerts = load_alerts_config(SHIPPED)
    assert alerts.deadline_for("ingest") == 15
    assert alerts.deadline_for("compaction") == 120
    assert alerts.deadline_for("unlisted") == alerts.default_deadline_minutes == 60
    assert alerts.webhook_conn_id == "lakeops_alerts_webhook"


def test_alerts_section_is_parsed_with_the_whole_config(tmp_path):
    config = parse_config({"alerts": {"deadline_minutes": {"etl": 45}, "email_conn_id": "mail"}}, tmp_path)
    assert config.alerts == AlertsConfig(deadline_minutes={"etl": 45}, email_conn_id="mail")


@pytest.mark.parametrize("section, message", [
    ({"deadline_minutes": {"ingest": 0}}, r"alerts.deadline_minutes.ingest: 0 must be a whole number of minutes"),
    ({"deadline_minutes": {"ingest": "soon"}}, r"alerts.deadline_minutes.ingest: 'soon'"),
    ({"deadline_minutes": {"Bad-Kind": 5}}, r"DAG kind: 'Bad-Kind' is not a valid name"),
    ({"default_deadline_minutes": 0}, r"alerts.default_deadline_minutes: 0 must be at least 1"),
    ({"webhook_conn_id": " "}, r"alerts.webhook_conn_id: must name an Airflow connection id"),
    ({"webhook": "x"}, r"alerts: unknown key 'webhook'"),
])
def test_bad_alert_settings_are_refused_with_the_key(tmp_path, section, message):
    with pytest.raises(ConfigError, match=message):
        parse_config({"alerts": section}, tmp_path)
    path = tmp_path / "lakeops.yaml"
    import yaml

    path.write_text(yaml.safe_dump({"alerts": section}))
    with pytest.raises(ConfigError, match=message):
        load_alerts_config(path)


def test_alerts_reader_follows_file_changes(tmp_path):
    import os

    path = tmp_path / "lakeops.yaml"
    path.write_text("alerts: {deadline_minutes: {ingest: 5}}\n")
    assert load_alerts_config(path).deadline_for("ingest") == 5
    path.write_text("alerts: {deadline_minutes: {ingest: 7}}\n")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
    assert load_alerts_config(path).deadline_for("ingest") == 7
    with pytest.raises(ConfigError, match="cannot be read"):
        load_alerts_config(tmp_path / "missing.yaml")
